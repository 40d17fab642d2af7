// The parts of a compact JWS (RFC 7515 section 7.1) that a client sends: three base64url segments,
// the first two JSON objects. Shared by the client assertion and the DPoP proof parsers, each of
// which words its own refusal.
export const COMPACT_JWS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

/** The segment's JSON object; otherwise what `refuse` makes of the problem ("is not base64url JSON", "is not a JSON object"). */
export function jsonSegment(segment: string, refuse: (problem: string) => Error): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw refuse('is not base64url JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse('is not a JSON object');
  return value as Record<string, unknown>;
}
