// The synchronous signer makes tokens jose verifies, for every configurable algorithm, and its
// header and payload are exactly the JSON given (one spelling: no padding, canonical base64url);
// EdDSA through libsodium signs exactly as node:crypto does.
import { KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { compactVerify, generateKeyPair, jwtVerify } from 'jose';
import t from 'tap';
import { JWT_ALGORITHMS } from '../../gateway/config/settings.js';
import { OPENSSL_SIGNERS, signCompactJws } from '../../gateway/oauth/compact-jws.js';
import { sodium } from '../../gateway/signing/sodium.js';

for (const alg of JWT_ALGORITHMS) {
  t.test(`${alg}: jose verifies what signCompactJws signs`, async (t) => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
    const claims = {
      iss: 'https://gateway.test',
      sub: 'client-1',
      aud: 'api',
      scope: 'sales stats',
      iat: 1_800_000_000,
      exp: 4_000_000_000,
      jti: 'j-1',
      note: 'é ✓',
    };
    const token = signCompactJws({ alg, kid: 'k1', typ: 'at+jwt' }, claims, KeyObject.from(privateKey));
    t.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'three unpadded base64url parts');
    const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: [alg], typ: 'at+jwt', issuer: claims.iss, audience: 'api' });
    t.same(protectedHeader, { alg, kid: 'k1', typ: 'at+jwt' });
    t.same(payload, claims);
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BA' : 'AA');
    await t.rejects(compactVerify(tampered, publicKey), 'a changed signature does not verify');
  });
}

t.test('EdDSA through libsodium: the same token as node:crypto signs, byte for byte', async (t) => {
  t.ok(sodium, 'sodium-native is installed (an optional dependency, installed by default): the two signers below differ');
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const key = KeyObject.from(privateKey);
  const header = { alg: 'EdDSA' as const, kid: 'k1', typ: 'at+jwt' };
  await fc.assert(
    fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.string(), fc.integer(), fc.boolean())), async (claims) => {
      const token = signCompactJws(header, claims, key);
      if (token !== signCompactJws(header, claims, key, OPENSSL_SIGNERS)) return false;
      await compactVerify(token, publicKey);
      return true;
    }),
    { numRuns: 50 },
  );
  t.pass('equal and verified by jose over 50 payloads');
});

t.test('an EdDSA token cannot be signed with a key of another type', async (t) => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  t.throws(() => signCompactJws({ alg: 'EdDSA', kid: 'k1', typ: 'at+jwt' }, { sub: 'x' }, KeyObject.from(privateKey)));
  t.throws(
    () => signCompactJws({ alg: 'EdDSA', kid: 'k1', typ: 'at+jwt' }, { sub: 'x' }, KeyObject.from(privateKey), OPENSSL_SIGNERS),
    'nor through node:crypto',
  );
});
