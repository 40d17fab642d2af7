// The DPoP proof checker (gateway/oauth/dpop-proof.ts, RFC 9449 section 4.3): proofs made here with
// node:crypto and with jose (an independent signer) pass; each rule of 4.3 refuses the proof that
// breaks it, with a reason that names the rule; and, as properties, anything a client can send is
// either accepted or refused with DpopProofRefused, never another error, and a proof changed in any
// one character of its signed part stops verifying.
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { SignJWT, exportJWK } from 'jose';
import t from 'tap';
import { accessTokenHash, checkDpopProof, DpopProofRefused, htuOf, MAX_DPOP_PROOF_LENGTH, type DpopRules } from '../../gateway/oauth/dpop-proof.js';
import { jwkThumbprint } from '../../gateway/oauth/client-jwks.js';
import { holds } from '../helpers/property.js';

const NOW = 1_800_000_000;
const URL_ = 'https://api.bank.test/v1/accounts';
const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln';
const RULES: DpopRules = {
  algorithms: ['EdDSA', 'Ed25519', 'ES256', 'PS256'],
  method: 'GET',
  url: URL_,
  accessToken: TOKEN,
  nowSeconds: NOW,
  maxAgeSeconds: 60,
};

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Signer {
  alg: string;
  privateKey: KeyObject;
  jwk: Record<string, string>;
}

function signerOf(type: 'ed25519' | 'p256' | 'rsa'): Signer {
  const pair =
    type === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : type === 'p256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = pair.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return { alg: type === 'ed25519' ? 'EdDSA' : type === 'p256' ? 'ES256' : 'PS256', privateKey: pair.privateKey, jwk };
}

function proofOf(signer: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): string {
  const input = `${b64({ typ: 'dpop+jwt', alg: signer.alg, jwk: signer.jwk, ...header })}.${b64({
    jti: randomUUID(),
    htm: 'GET',
    htu: URL_,
    iat: NOW,
    ath: accessTokenHash(TOKEN),
    ...claims,
  })}`;
  const data = Buffer.from(input);
  const signature =
    signer.alg === 'EdDSA'
      ? sign(null, data, signer.privateKey)
      : signer.alg === 'ES256'
        ? sign('sha256', data, { key: signer.privateKey, dsaEncoding: 'ieee-p1363' })
        : sign('sha256', data, { key: signer.privateKey, padding: 6, saltLength: 32 });
  return `${input}.${signature.toString('base64url')}`;
}

function refusal(proof: string, rules: Partial<DpopRules> = {}): string {
  try {
    checkDpopProof(proof, { ...RULES, ...rules });
  } catch (error) {
    if (error instanceof DpopProofRefused) return error.message;
    throw error;
  }
  return 'accepted';
}

const ed = signerOf('ed25519');

t.test('a proof of each key type passes, with its key thumbprint, jti and iat', async (t) => {
  for (const signer of [ed, signerOf('p256'), signerOf('rsa')]) {
    const proof = proofOf(signer, { jti: `jti-${signer.alg}` });
    const checked = checkDpopProof(proof, RULES);
    const { kty, crv, x, y, e, n } = signer.jwk;
    const members: Record<string, string> =
      kty === 'OKP' ? { crv: crv!, kty, x: x! } : kty === 'EC' ? { crv: crv!, kty, x: x!, y: y! } : { e: e!, kty: kty!, n: n! };
    t.same(checked, { jkt: jwkThumbprint(members), jti: `jti-${signer.alg}`, iat: NOW }, signer.alg);
  }
  t.equal(refusal(proofOf(ed, {}, { alg: 'Ed25519' })), 'accepted', "RFC 9864's Ed25519 label is EdDSA's");
});

t.test("a proof signed by jose, an independent implementation, passes; the thumbprint is jose's", async (t) => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = await exportJWK(publicKey);
  const proof = await new SignJWT({ htm: 'POST', htu: 'https://issuer.test/v1/oauth/token', jti: randomUUID() })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'EdDSA', jwk })
    .setIssuedAt(NOW)
    .sign(privateKey);
  const checked = checkDpopProof(proof, { ...RULES, method: 'POST', url: 'https://issuer.test/v1/oauth/token', accessToken: undefined });
  const expected = createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: jwk.x }))
    .digest('base64url');
  t.equal(checked.jkt, expected);
});

t.test('each rule of RFC 9449 4.3 refuses the proof that breaks it, saying which', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['typ', proofOf(ed, {}, { typ: 'JWT' }), /typ is not "dpop\+jwt"/],
    ['alg none', proofOf(ed, {}, { alg: 'none' }), /alg is not one of/],
    ['alg HS256', proofOf(ed, {}, { alg: 'HS256' }), /alg is not one of/],
    ['alg of another key type', proofOf(ed, {}, { alg: 'ES256' }), /signature does not verify/],
    ['no jwk', proofOf(ed, {}, { jwk: undefined }), /jwk is not a JSON object/],
    ['a private jwk', proofOf(ed, {}, { jwk: { ...ed.jwk, d: 'AAAA' } }), /jwk is a private JWK/],
    ['a symmetric jwk', proofOf(ed, {}, { jwk: { kty: 'oct', k: 'c2VjcmV0' } }), /jwk is a secret/],
    ['crit', proofOf(ed, {}, { crit: ['exp'] }), /crit or b64/],
    ['no jti', proofOf(ed, { jti: undefined }), /jti is missing/],
    ['a long jti', proofOf(ed, { jti: 'j'.repeat(257) }), /jti is missing or longer/],
    ['another method', proofOf(ed, { htm: 'POST' }), /htm is not this request's method/],
    ['a lower-case method', proofOf(ed, { htm: 'get' }), /htm is not/],
    ['another URL', proofOf(ed, { htu: 'https://api.bank.test/v1/payments' }), /htu is not this request's URL/],
    ['another host', proofOf(ed, { htu: 'https://evil.test/v1/accounts' }), /htu is not/],
    ['http for https', proofOf(ed, { htu: 'http://api.bank.test/v1/accounts' }), /htu is not/],
    ['no htu', proofOf(ed, { htu: undefined }), /htu is not/],
    ['no iat', proofOf(ed, { iat: undefined }), /iat is missing/],
    ['iat as a string', proofOf(ed, { iat: String(NOW) }), /iat is missing/],
    ['iat in the future', proofOf(ed, { iat: NOW + 6 }), /iat is in the future/],
    ['too old', proofOf(ed, { iat: NOW - 61 }), /older than 60 s/],
    ['no ath', proofOf(ed, { ath: undefined }), /ath is not the hash of this access token/],
    ["another token's ath", proofOf(ed, { ath: accessTokenHash(`${TOKEN}x`) }), /ath is not the hash/],
    ['not a JWS', 'a.b', /not a compact JWS/],
    ['a header that is no JSON', `${Buffer.from('{').toString('base64url')}.e30.c2ln`, /header is not base64url JSON/],
    ['a JSON array header', `${b64([1])}.e30.c2ln`, /header is not a JSON object/],
    ['too long', 'a'.repeat(MAX_DPOP_PROOF_LENGTH + 1), /longer than 4096/],
  ];
  for (const [what, proof, reason] of cases) t.match(refusal(proof), reason, what);
  // The checked keys are remembered; a refused one is not, and is refused again.
  t.match(refusal(proofOf(ed, {}, { jwk: { ...ed.jwk, d: 'AAAA' } })), /jwk is a private JWK/, 'a private jwk, again');
  t.match(
    refusal(proofOf(ed, {}, { jwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.alloc(32).toString('base64url') } })),
    /small order|identity|not a point|jwk/,
    'a degenerate key',
  );

  const proof = proofOf(ed);
  const [header, payload, signature] = proof.split('.') as [string, string, string];
  const other = proofOf(signerOf('ed25519'));
  t.match(refusal(`${header}.${payload}.${other.split('.')[2]}`), /signature does not verify/, "another key's signature");
  t.match(refusal(`${header}.${payload}.${signature.slice(0, -2)}`), /signature does not verify/, 'a truncated signature');
  t.match(refusal(proof, { url: 'not a url' }), /htu is not/, 'a request URL that cannot be parsed matches nothing');
  t.equal(refusal(proofOf(ed, { ath: undefined }), { accessToken: undefined }), 'accepted', 'no ath at the token endpoint');
  t.equal(refusal(proofOf(ed, { iat: NOW - 60 })), 'accepted', 'as old as allowed');
  t.equal(refusal(proofOf(ed, { iat: NOW + 5 })), 'accepted', 'within the clock skew');
});

t.test('htu is compared as RFC 9449 4.3 says: without query and fragment, normalised', async (t) => {
  for (const htu of [
    'https://api.bank.test/v1/accounts?x=1',
    'https://api.bank.test/v1/accounts#frag',
    'HTTPS://API.BANK.TEST/v1/accounts',
    'https://api.bank.test:443/v1/accounts',
    'https://api.bank.test/v1/./accounts',
  ]) {
    t.equal(refusal(proofOf(ed, { htu })), 'accepted', htu);
  }
  for (const htu of [
    'https://api.bank.test/v1/Accounts',
    'https://api.bank.test:8443/v1/accounts',
    'https://user@api.bank.test/v1/accounts',
    'ftp://api.bank.test/v1/accounts',
  ]) {
    t.match(refusal(proofOf(ed, { htu })), /htu is not/, htu);
  }
  t.equal(htuOf('https://a.test/p?q#f'), 'https://a.test/p');
  t.equal(htuOf('javascript:alert(1)'), undefined);
});

t.test('property: any string is accepted or refused with DpopProofRefused, never another error', async (t) => {
  const segment = fc.oneof(
    fc.string({ maxLength: 60 }).map((s) => Buffer.from(s).toString('base64url')),
    fc.jsonValue({ maxDepth: 3 }).map((v) => b64(v)),
    fc
      .record({ typ: fc.constantFrom('dpop+jwt', 'JWT'), alg: fc.constantFrom('EdDSA', 'ES256', 'PS256', 'none'), jwk: fc.jsonValue({ maxDepth: 2 }) })
      .map((v) => b64(v)),
    fc.constant(b64({ typ: 'dpop+jwt', alg: 'EdDSA', jwk: ed.jwk })),
  );
  const candidates = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.tuple(segment, segment, fc.string({ maxLength: 90 })).map(([h, p, s]) => `${h}.${p}.${s}`),
  );
  holds(
    t,
    fc.property(candidates, (proof) => {
      try {
        checkDpopProof(proof, RULES);
        return true;
      } catch (error) {
        return error instanceof DpopProofRefused;
      }
    }),
    400,
  );
});

t.test('property: a proof changed in one character of its signed part is refused', async (t) => {
  const proof = proofOf(ed);
  const signed = proof.lastIndexOf('.');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  holds(
    t,
    fc.property(fc.nat(signed - 1), fc.constantFrom(...alphabet), (index, replacement) => {
      if (proof[index] === replacement || proof[index] === '.') return true;
      const changed = `${proof.slice(0, index)}${replacement}${proof.slice(index + 1)}`;
      return refusal(changed) !== 'accepted';
    }),
    300,
  );
});
