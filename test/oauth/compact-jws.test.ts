// The synchronous signer makes tokens jose verifies, for every configurable algorithm, and its
// header and payload are exactly the JSON given (one spelling: no padding, canonical base64url).
import { KeyObject } from 'node:crypto';
import { compactVerify, generateKeyPair, jwtVerify } from 'jose';
import t from 'tap';
import { JWT_ALGORITHMS } from '../../gateway/config/settings.js';
import { signCompactJws } from '../../gateway/oauth/compact-jws.js';

for (const alg of JWT_ALGORITHMS) {
  t.test(`${alg}: jose verifies what signCompactJws signs`, async (t) => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
    const claims = { iss: 'https://gateway.test', sub: 'client-1', aud: 'api', scope: 'sales stats', iat: 1_800_000_000, exp: 4_000_000_000, jti: 'j-1', note: 'é ✓' };
    const token = signCompactJws({ alg, kid: 'k1', typ: 'at+jwt' }, claims, KeyObject.from(privateKey));
    t.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'three unpadded base64url parts');
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: [alg], typ: 'at+jwt', issuer: claims.iss, audience: 'api' });
    t.same(protectedHeader, { alg, kid: 'k1', typ: 'at+jwt' });
    t.same(payload, claims);
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BA' : 'AA');
    await t.rejects(compactVerify(tampered, publicKey), 'a changed signature does not verify');
  });
}
