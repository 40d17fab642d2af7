// RFC 8941 Dictionary parsing for the fields a signed request carries (Signature-Input, Signature,
// Content-Digest). structured-headers reads a character at a time through regular expressions: 5.6
// µs for a request's Signature-Input and Signature. This reads the forms RFC 9421 and RFC 9530 use
// (inner lists of strings; parameters whose values are strings, integers or booleans; byte
// sequences) in one pass of character codes, and hands anything else whole to structured-headers:
// tokens, decimals, dates, display strings, and everything malformed. So every result, and every
// refusal with its message, is that library's; test/signing/dictionary-parser.property.test.ts
// holds the two to the same answer on generated and mangled fields.
import { parseDictionary as parseWithLibrary, type BareItem, type Dictionary, type InnerList, type Item, type Parameters } from 'structured-headers';

/** Thrown inside the fast path (one instance, made once): the field is given to the library instead. */
const NOT_MINE = new Error('a form this parser hands to structured-headers');

const SP = 0x20;
const HTAB = 0x09;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const COMMA = 0x2c;
const OPEN = 0x28;
const CLOSE = 0x29;
const QUESTION = 0x3f;
const MINUS = 0x2d;
const STAR = 0x2a;
/** The longest integer RFC 8941 allows. */
const MAX_INTEGER_DIGITS = 15;
const BASE64 = /^[A-Za-z0-9+/=]*$/;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLcAlpha = (c: number) => c >= 0x61 && c <= 0x7a;
const isKeyChar = (c: number) => isLcAlpha(c) || isDigit(c) || c === 0x5f || c === MINUS || c === 0x2e || c === STAR;

class FastDictionaryParser {
  private pos = 0;

  constructor(private readonly input: string) {}

  parse(): Dictionary {
    const dictionary: Dictionary = new Map();
    this.skipSpaces();
    while (this.pos < this.input.length) {
      const key = this.key();
      let member: Item | InnerList;
      if (this.code() === EQUALS) {
        this.pos++;
        member = this.code() === OPEN ? this.innerList() : [this.bareItem(), this.parameters()];
      } else {
        member = [true, this.parameters()];
      }
      dictionary.set(key, member);
      while (this.code() === SP || this.code() === HTAB) this.pos++;
      if (this.pos >= this.input.length) return dictionary;
      if (this.code() !== COMMA) throw NOT_MINE;
      this.pos++;
      while (this.code() === SP || this.code() === HTAB) this.pos++;
      if (this.pos >= this.input.length) throw NOT_MINE;
    }
    return dictionary;
  }

  /** The character code at the cursor; NaN past the end. */
  private code(): number {
    return this.input.charCodeAt(this.pos);
  }

  private skipSpaces(): void {
    while (this.code() === SP) this.pos++;
  }

  private key(): string {
    const start = this.pos;
    const first = this.code();
    if (!isLcAlpha(first) && first !== STAR) throw NOT_MINE;
    this.pos++;
    while (isKeyChar(this.code())) this.pos++;
    return this.input.slice(start, this.pos);
  }

  private innerList(): InnerList {
    this.pos++;
    const items: Item[] = [];
    while (this.pos < this.input.length) {
      this.skipSpaces();
      if (this.code() === CLOSE) {
        this.pos++;
        return [items, this.parameters()];
      }
      items.push([this.bareItem(), this.parameters()]);
      const next = this.code();
      if (next !== SP && next !== CLOSE) throw NOT_MINE;
    }
    throw NOT_MINE;
  }

  private parameters(): Parameters {
    const parameters: Parameters = new Map();
    while (this.code() === SEMICOLON) {
      this.pos++;
      this.skipSpaces();
      const key = this.key();
      let value: BareItem = true;
      if (this.code() === EQUALS) {
        this.pos++;
        value = this.bareItem();
      }
      parameters.set(key, value);
    }
    return parameters;
  }

  private bareItem(): BareItem {
    const c = this.code();
    if (c === DQUOTE) return this.string();
    if (isDigit(c) || c === MINUS) return this.integer();
    if (c === COLON) return this.byteSequence();
    if (c === QUESTION) return this.boolean();
    throw NOT_MINE;
  }

  private string(): string {
    this.pos++;
    const start = this.pos;
    let escaped = false;
    for (;;) {
      const c = this.code();
      if (Number.isNaN(c) || c < SP || c > 0x7e) throw NOT_MINE;
      if (c === BACKSLASH) {
        const next = this.input.charCodeAt(this.pos + 1);
        if (next !== BACKSLASH && next !== DQUOTE) throw NOT_MINE;
        escaped = true;
        this.pos += 2;
        continue;
      }
      this.pos++;
      if (c === DQUOTE) break;
    }
    const raw = this.input.slice(start, this.pos - 1);
    return escaped ? raw.replace(/\\(["\\])/g, '$1') : raw;
  }

  private integer(): number {
    let sign = 1;
    if (this.code() === MINUS) {
      sign = -1;
      this.pos++;
    }
    const start = this.pos;
    while (isDigit(this.code())) this.pos++;
    const digits = this.pos - start;
    // A decimal is the library's; so is every error (no digit, too many).
    if (digits === 0 || digits > MAX_INTEGER_DIGITS || this.code() === 0x2e) throw NOT_MINE;
    return parseInt(this.input.slice(start, this.pos), 10) * sign;
  }

  private byteSequence(): ArrayBuffer {
    this.pos++;
    const end = this.input.indexOf(':', this.pos);
    if (end === -1) throw NOT_MINE;
    const encoded = this.input.slice(this.pos, end);
    this.pos = end + 1;
    if (!BASE64.test(encoded)) throw NOT_MINE;
    // What atob (the library's decoder, WHATWG forgiving-base64) accepts: one or two "=" ending a
    // length divisible by 4, no other "=", and no length of 4n + 1.
    let unpadded = encoded;
    if (unpadded.length % 4 === 0) unpadded = unpadded.endsWith('==') ? unpadded.slice(0, -2) : unpadded.endsWith('=') ? unpadded.slice(0, -1) : unpadded;
    if (unpadded.length % 4 === 1 || unpadded.includes('=')) throw NOT_MINE;
    // Buffer.alloc has an ArrayBuffer of its own, of exactly this length (4 characters to 3 bytes).
    const bytes = Buffer.alloc(Math.floor((unpadded.length * 3) / 4));
    bytes.write(unpadded, 'base64');
    return bytes.buffer;
  }

  private boolean(): boolean {
    const value = this.input.charCodeAt(this.pos + 1);
    if (value !== 0x30 && value !== 0x31) throw NOT_MINE;
    this.pos += 2;
    return value === 0x31;
  }
}

/** The field parsed here; undefined when it is the library's (a form not read here, or malformed). */
export function fastDictionary(field: string): Dictionary | undefined {
  try {
    return new FastDictionaryParser(field).parse();
  } catch (error) {
    if (error === NOT_MINE) return undefined;
    throw error;
  }
}

/** An RFC 8941 Dictionary, as structured-headers' parseDictionary returns it (and throws as it throws). */
export function parseDictionary(field: string): Dictionary {
  return fastDictionary(field) ?? parseWithLibrary(field);
}
