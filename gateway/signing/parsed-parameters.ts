// Parameters as the RFC 8941 parser (structured-headers) returns them, in the client package's
// types, so the verifier serialises the "@signature-params" line with the signer's own code.
import {
  DisplayString as ParsedDisplayString,
  Token as ParsedToken,
  type BareItem as ParsedBareItem,
  type Parameters as ParsedParameters,
} from 'structured-headers';
import { DisplayString, Token, type BareItem, type Parameters } from '@access-gateway/signing/structured-fields';

export function fromParsedItem(value: ParsedBareItem): BareItem {
  if (value instanceof ParsedToken) return new Token(value.toString());
  if (value instanceof ParsedDisplayString) return new DisplayString(value.toString());
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

export function fromParsedParameters(parameters: ParsedParameters): Parameters {
  return new Map([...parameters].map(([key, value]) => [key, fromParsedItem(value)]));
}
