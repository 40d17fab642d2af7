// RFC 9530 Content-Digest: a Dictionary of algorithm -> Byte Sequence over the content bytes.
// The gateway accepts sha-256 and sha-512; it ignores the deprecated algorithms.
import { createHash } from 'node:crypto';
import { serializeDictionary } from './structured-fields.js';

export const DIGEST_ALGORITHMS = { 'sha-256': 'sha256', 'sha-512': 'sha512' } as const;
export type DigestAlgorithm = keyof typeof DIGEST_ALGORITHMS;

export function contentDigest(body: Uint8Array | string, algorithm: DigestAlgorithm = 'sha-256'): string {
  const digest = createHash(DIGEST_ALGORITHMS[algorithm]).update(body).digest();
  return serializeDictionary([[algorithm, [digest, new Map()]]]);
}
