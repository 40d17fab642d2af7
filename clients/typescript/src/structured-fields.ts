// Serialising RFC 8941 / RFC 9651 structured field values: what Signature-Input, Signature and
// Content-Digest are written as, and the "@signature-params" line of a signature base. Only the
// writing half: a client never has to parse these headers, so the package needs no parser (and no
// dependency). The gateway parses with a full parser and converts to these types, so that both
// sides serialise a signature base with this one code.
import { SignatureError } from './errors.js';

const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/;
const KEY = /^[a-z*][a-z0-9_\-.*]*$/;
const ASCII = /^[\x20-\x7e]*$/;
const MAX_INTEGER = 999_999_999_999_999;
const MAX_DECIMAL_INTEGER_DIGITS = 12;

export class Token {
  constructor(readonly value: string) {
    if (!TOKEN.test(value)) throw new SignatureError('malformed', `${JSON.stringify(value)} is not a structured field token.`);
  }
}

/** RFC 9651 Display String: Unicode text, written percent-encoded. */
export class DisplayString {
  constructor(readonly value: string) {}
}

export type BareItem = number | string | boolean | Token | DisplayString | Date | Uint8Array | ArrayBuffer;
export type Parameters = ReadonlyMap<string, BareItem>;
export type Item = readonly [BareItem, Parameters];
export type InnerList = readonly [readonly Item[], Parameters];

function cannot(what: string): never {
  throw new SignatureError('malformed', `A structured field cannot carry ${what}.`);
}

function serializeNumber(value: number): string {
  if (!Number.isFinite(value)) cannot(String(value));
  if (Number.isInteger(value)) {
    if (Math.abs(value) > MAX_INTEGER) cannot(`the integer ${value} (at most 15 digits)`);
    return String(value);
  }
  // Three fractional digits, trailing zeros dropped: what the gateway's parser (structured-headers) writes too.
  const text = value.toFixed(3).replace(/0+$/, '');
  if (text.split('.')[0]!.replace('-', '').length > MAX_DECIMAL_INTEGER_DIGITS) cannot(`the decimal ${value} (at most 12 integer digits)`);
  return text;
}

export function serializeString(value: string): string {
  if (!ASCII.test(value)) cannot(`${JSON.stringify(value)} as a string (printable ASCII only)`);
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function serializeDisplayString(value: string): string {
  let out = '%"';
  for (const byte of Buffer.from(value, 'utf8')) {
    out += byte === 0x25 || byte === 0x22 || byte <= 0x1f || byte >= 0x7f ? `%${byte.toString(16).padStart(2, '0')}` : String.fromCharCode(byte);
  }
  return `${out}"`;
}

function serializeBytes(value: Uint8Array | ArrayBuffer): string {
  const bytes = value instanceof ArrayBuffer ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return `:${bytes.toString('base64')}:`;
}

export function serializeBareItem(value: BareItem): string {
  if (typeof value === 'number') return serializeNumber(value);
  if (typeof value === 'string') return serializeString(value);
  if (typeof value === 'boolean') return value ? '?1' : '?0';
  if (value instanceof Token) return value.value;
  if (value instanceof DisplayString) return serializeDisplayString(value.value);
  if (value instanceof Date) {
    const seconds = Math.floor(value.getTime() / 1000);
    if (!Number.isFinite(seconds)) cannot('an invalid date');
    return `@${serializeNumber(seconds)}`;
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return serializeBytes(value);
  return cannot(`a value of type ${typeof value}`);
}

function serializeKey(key: string): string {
  if (!KEY.test(key)) cannot(`the key ${JSON.stringify(key)}`);
  return key;
}

export function serializeParameters(parameters: Parameters): string {
  let out = '';
  for (const [key, value] of parameters) out += value === true ? `;${serializeKey(key)}` : `;${serializeKey(key)}=${serializeBareItem(value)}`;
  return out;
}

export function serializeItem([value, parameters]: Item): string {
  return serializeBareItem(value) + serializeParameters(parameters);
}

export function serializeInnerList([items, parameters]: InnerList): string {
  return `(${items.map(serializeItem).join(' ')})${serializeParameters(parameters)}`;
}

function isInnerList(member: Item | InnerList): member is InnerList {
  return Array.isArray(member[0]);
}

export function serializeDictionary(members: Iterable<readonly [string, Item | InnerList]>): string {
  const out: string[] = [];
  for (const [key, member] of members) {
    if (isInnerList(member)) out.push(`${serializeKey(key)}=${serializeInnerList(member)}`);
    else if (member[0] === true) out.push(serializeKey(key) + serializeParameters(member[1]));
    else out.push(`${serializeKey(key)}=${serializeItem(member)}`);
  }
  return out.join(', ');
}
