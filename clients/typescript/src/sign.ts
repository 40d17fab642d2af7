// The generic RFC 9421 signing step: a request, the components to cover and the signature
// parameters in; the Signature-Input and Signature members (and the base that was signed) out.
import { sign, type KeyObject } from 'node:crypto';
import type { SignableRequest } from './message.js';
import { loadPrivateKey, type PrivateKeyInput } from './private-key.js';
import { DEFAULT_LABEL } from './profile.js';
import { buildSignatureBase } from './signature-base.js';
import { descriptor, toInnerList, type SignatureParameters } from './signature-params.js';
import { serializeDictionary } from './structured-fields.js';

export interface SignatureFields {
  'signature-input': string;
  signature: string;
  /** The exact bytes that were signed (for debugging and documentation). */
  base: string;
}

/** The ed25519 algorithm of RFC 9421 section 3.3.6 over the base's UTF-8 bytes. */
export function signEd25519(base: string, privateKey: KeyObject): Buffer {
  return sign(null, Buffer.from(base, 'utf8'), privateKey);
}

/** Signs `components` of a request with an Ed25519 key under `label`. */
export function signMessage(
  request: SignableRequest,
  components: readonly string[],
  params: SignatureParameters,
  privateKey: PrivateKeyInput,
  label = DEFAULT_LABEL,
): SignatureFields {
  const signature = descriptor(components, params);
  const base = buildSignatureBase(request, signature);
  // A KeyObject is only checked to be an Ed25519 private key: node:crypto would sign with any key.
  const value = signEd25519(base, loadPrivateKey(privateKey));
  return {
    'signature-input': serializeDictionary([[label, toInnerList(signature)]]),
    signature: serializeDictionary([[label, [value, new Map()]]]),
    base,
  };
}
