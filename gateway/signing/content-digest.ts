// Checking an RFC 9530 Content-Digest against the body the gateway received: only sha-256 and
// sha-512 are accepted; the deprecated algorithms are ignored, never trusted. Writing one is the
// client package's contentDigest, re-exported.
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDictionary } from './dictionary-parser.js';
import { DIGEST_ALGORITHMS, type DigestAlgorithm } from '@access-gateway/signing';

export { contentDigest, DIGEST_ALGORITHMS, type DigestAlgorithm } from '@access-gateway/signing';

export type DigestCheck = 'match' | 'mismatch' | 'no_supported_algorithm' | 'malformed';

/** The sha-256/sha-512 members of a Content-Digest header, each with the digest it claims. */
export type ClaimedDigests = ReadonlyArray<readonly [DigestAlgorithm, Buffer]>;

/** Parses the header without the body, so a bad header is refused before any body is read. */
export function parseContentDigest(header: string): ClaimedDigests | 'malformed' | 'no_supported_algorithm' {
  let members;
  try {
    members = parseDictionary(header);
  } catch {
    return 'malformed';
  }
  const claimed: [DigestAlgorithm, Buffer][] = [];
  for (const [name, member] of members) {
    if (!Object.hasOwn(DIGEST_ALGORITHMS, name)) continue;
    const value = member[0];
    if (!(value instanceof ArrayBuffer)) return 'malformed';
    claimed.push([name as DigestAlgorithm, Buffer.from(value)]);
  }
  return claimed.length > 0 ? claimed : 'no_supported_algorithm';
}

/** Every claimed digest must match the bytes. */
export function digestsMatch(claimed: ClaimedDigests, body: Uint8Array): boolean {
  for (const [algorithm, received] of claimed) {
    const expected = createHash(DIGEST_ALGORITHMS[algorithm]).update(body).digest();
    if (received.length !== expected.length || !timingSafeEqual(received, expected)) return false;
  }
  return true;
}

/** Every sha-256/sha-512 member must match the bytes; at least one must be present. */
export function checkContentDigest(header: string, body: Uint8Array): DigestCheck {
  const claimed = parseContentDigest(header);
  if (typeof claimed === 'string') return claimed;
  return digestsMatch(claimed, body) ? 'match' : 'mismatch';
}
