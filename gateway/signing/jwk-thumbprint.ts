// RFC 7638 JWK thumbprints: a key's name computable from its public members alone (a client key's
// default kid, cnf.jkt of a DPoP-bound token, the keyid of the gateway's response signatures).
import { createHash } from 'node:crypto';

/** SHA-256 of the required members in lexicographic order, base64url. */
export function jwkThumbprint(members: Record<string, string>): string {
  const ordered = Object.fromEntries(
    Object.keys(members)
      .sort()
      .map((name) => [name, members[name]]),
  );
  return createHash('sha256').update(JSON.stringify(ordered)).digest('base64url');
}
