// RFC 9530 Content-Digest: a Dictionary of algorithm -> Byte Sequence over the content bytes.
// Only sha-256 and sha-512 are accepted; the deprecated algorithms are ignored, never trusted.
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDictionary, serializeDictionary } from 'structured-headers';

export const DIGEST_ALGORITHMS = { 'sha-256': 'sha256', 'sha-512': 'sha512' } as const;
export type DigestAlgorithm = keyof typeof DIGEST_ALGORITHMS;

export function contentDigest(body: Uint8Array | string, algorithm: DigestAlgorithm = 'sha-256'): string {
  const digest = createHash(DIGEST_ALGORITHMS[algorithm]).update(body).digest();
  return serializeDictionary(new Map([[algorithm, [digest, new Map()]]]));
}

export type DigestCheck = 'match' | 'mismatch' | 'no_supported_algorithm' | 'malformed';

/** Every sha-256/sha-512 member must match the bytes; at least one must be present. */
export function checkContentDigest(header: string, body: Uint8Array): DigestCheck {
  let members;
  try {
    members = parseDictionary(header);
  } catch {
    return 'malformed';
  }
  let checked = 0;
  for (const [name, member] of members) {
    if (!Object.hasOwn(DIGEST_ALGORITHMS, name)) continue;
    const value = member[0];
    if (!(value instanceof ArrayBuffer)) return 'malformed';
    const expected = createHash(DIGEST_ALGORITHMS[name as DigestAlgorithm]).update(body).digest();
    const received = Buffer.from(value);
    if (received.length !== expected.length || !timingSafeEqual(received, expected)) return 'mismatch';
    checked++;
  }
  return checked > 0 ? 'match' : 'no_supported_algorithm';
}
