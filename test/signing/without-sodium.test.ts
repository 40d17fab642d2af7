// sodium-native is an optional dependency: where npm cannot install it (no prebuilt addon for the
// platform and no compiler), the gateway verifies and signs Ed25519 with node:crypto instead, as
// strictly. Here the loader meets a require that cannot find sodium-native, the failure sodium.ts
// meets on such an install, and what it returns builds the equations and signers the gateway would use.
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { compactVerify } from 'jose';
import t from 'tap';
import { compactJwsSigners, OPENSSL_SIGNERS, signCompactJws } from '../../gateway/oauth/compact-jws.js';
import { ed25519Equations, preferredEquation, verifyEd25519 as verifyWith } from '../../gateway/signing/ed25519.js';
import { loadSodium } from '../../gateway/signing/sodium.js';
import { L, littleEndian, toLittleEndian } from '../helpers/ed25519-reference.js';
import { holds } from '../helpers/property.js';

/** Loads sodium-native as on an install without it: require's MODULE_NOT_FOUND. */
function withoutSodium(): never {
  throw Object.assign(new Error("Cannot find module 'sodium-native'"), { code: 'MODULE_NOT_FOUND' });
}

const rawOf = (key: KeyObject) => Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
const IDENTITY = Buffer.from('0100000000000000000000000000000000000000000000000000000000000000', 'hex');
// Signatures valid for every message under a small-order key (the identity point): R = B, S = 1 and R = identity, S = 0.
const FORGERIES = [
  Buffer.concat([Buffer.from('5866666666666666666666666666666666666666666666666666666666666666', 'hex'), toLittleEndian(1n)]),
  Buffer.concat([IDENTITY, Buffer.alloc(32)]),
];

t.test("without sodium-native: the loader reports none, and verification is node:crypto's, as strict", async (t) => {
  const sodium = loadSodium(withoutSodium);
  t.equal(sodium, undefined, 'a missing sodium-native is no error');
  const equations = ed25519Equations(sodium);
  t.same(Object.keys(equations), ['openssl'], "OpenSSL's equation is the only one, so the default");
  const equation = preferredEquation(equations);
  t.equal(equation, equations.openssl);
  const verifyEd25519 = (message: string | Uint8Array, signature: Uint8Array, key: Uint8Array | KeyObject) => verifyWith(message, signature, key, equation);

  const keys = Array.from({ length: 4 }, () => generateKeyPairSync('ed25519'));
  holds(
    t,
    fc.property(fc.integer({ min: 0, max: keys.length - 1 }), fc.string({ maxLength: 300 }), fc.nat(511), (index, message, bit) => {
      const { privateKey, publicKey } = keys[index]!;
      const signature = sign(null, Buffer.from(message), privateKey);
      if (!verifyEd25519(message, signature, rawOf(publicKey)) || !verifyEd25519(message, signature, publicKey)) return false;
      const flipped = Buffer.from(signature);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      return !verifyEd25519(message, flipped, rawOf(publicKey)) && !verifyEd25519(`${message}.`, signature, rawOf(publicKey));
    }),
    200,
  );
  holds(
    t,
    fc.property(fc.uint8Array({ maxLength: 200 }), (message) =>
      FORGERIES.every(
        (signature) =>
          verify(null, message, { key: { kty: 'OKP', crv: 'Ed25519', x: IDENTITY.toString('base64url') }, format: 'jwk' }, signature) &&
          !verifyEd25519(message, signature, IDENTITY),
      ),
    ),
    100,
  );
  const { privateKey, publicKey } = keys[0]!;
  const signature = sign(null, Buffer.from('GET /v1/balance'), privateKey);
  const s = littleEndian(signature.subarray(32));
  t.equal(verifyEd25519('GET /v1/balance', Buffer.concat([signature.subarray(0, 32), toLittleEndian(s + L)]), rawOf(publicKey)), false, 'S + L is refused');
});

t.test("without sodium-native: EdDSA access tokens are node:crypto's signatures", async (t) => {
  const signers = compactJwsSigners(loadSodium(withoutSodium));
  t.equal(signers, OPENSSL_SIGNERS, "the signers are node:crypto's");
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const header = { alg: 'EdDSA' as const, kid: 'k1', typ: 'at+jwt' };
  const claims = { sub: 'client-1', scope: 'sales', exp: 4_000_000_000 };
  const token = signCompactJws(header, claims, privateKey, signers);
  const { payload } = await compactVerify(token, publicKey);
  t.same(JSON.parse(Buffer.from(payload).toString('utf8')), claims, 'and jose verifies it');
  for (const other of [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ed448')]) {
    t.throws(() => signCompactJws(header, claims, other.privateKey, signers), TypeError, `a ${other.privateKey.asymmetricKeyType} key signs no EdDSA token`);
  }
  t.throws(() => signCompactJws(header, claims, publicKey, signers), TypeError, 'nor does a public key');
});
