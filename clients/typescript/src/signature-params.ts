// Signature metadata (RFC 9421 section 2.3) and its serialisation as a parameterised Inner List,
// which is both the "@signature-params" line of the base and the Signature-Input member value.
import { SignatureError } from './errors.js';
import { serializeInnerList, type BareItem, type InnerList, type Parameters } from './structured-fields.js';

export interface SignatureParameters {
  created?: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid?: string;
  tag?: string;
}

/** A signature's covered components and its parameters, in the order they were (or are) sent. */
export interface SignatureDescriptor {
  readonly components: readonly string[];
  /** All parameters in order, including ones this library does not interpret. */
  readonly parameters: Parameters;
}

const ORDER = ['created', 'expires', 'nonce', 'alg', 'keyid', 'tag'] as const;
/** RFC 8941 limits: integers of at most 15 digits, strings of printable ASCII. */
const MAX_SF_INTEGER = 999_999_999_999_999;
const SF_STRING = /^[\x20-\x7e]*$/;

export function descriptor(components: readonly string[], params: SignatureParameters): SignatureDescriptor {
  const parameters = new Map<string, BareItem>();
  for (const key of ORDER) {
    const value = params[key];
    if (value === undefined) continue;
    // Checked here so that a value the header cannot carry is a SignatureError, not a serializer's.
    if (key === 'created' || key === 'expires') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || Math.abs(value) > MAX_SF_INTEGER) {
        throw new SignatureError('malformed', `${key} must be an integer UNIX time`);
      }
    } else if (typeof value !== 'string' || !SF_STRING.test(value)) {
      throw new SignatureError('malformed', `${key} must be printable ASCII text`);
    }
    parameters.set(key, value);
  }
  return { components, parameters };
}

export function toInnerList(signature: SignatureDescriptor): InnerList {
  return [signature.components.map((name) => [name, new Map()] as const), signature.parameters];
}

/** The "@signature-params" value, e.g. ("@method" "@path");created=1618884473;keyid="k". */
export function serializeSignatureParams(signature: SignatureDescriptor): string {
  return serializeInnerList(toInnerList(signature));
}

/** Typed view of the parameters the RFC defines; a wrongly typed one is malformed. */
export function readParameters(parameters: Parameters): SignatureParameters {
  const out: SignatureParameters = {};
  for (const key of ORDER) {
    const value = parameters.get(key);
    if (value === undefined) continue;
    if (key === 'created' || key === 'expires') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new SignatureError('malformed', `The ${key} parameter must be an integer.`);
      out[key] = value;
    } else {
      if (typeof value !== 'string') throw new SignatureError('malformed', `The ${key} parameter must be a string.`);
      out[key] = value;
    }
  }
  return out;
}
