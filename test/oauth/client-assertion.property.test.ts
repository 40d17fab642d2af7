// Property tests of the two parsers of outside input behind private_key_jwt: the client assertion
// (gateway/oauth/client-assertion.ts), checked against a model of its rules written here, and the
// JWKS input of the admin API (gateway/oauth/client-jwks.ts), which refuses only with a
// PublicKeyError, refuses any private member as a private key, and stores public members only.
import t from 'tap';
import fc from 'fast-check';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import {
  ASSERTION_CLOCK_SKEW_SECONDS,
  AssertionRefused,
  MAX_ASSERTION_LENGTH,
  MAX_ASSERTION_LIFETIME_SECONDS,
  parseClientAssertion,
} from '../../gateway/oauth/client-assertion.js';
import { clientKeysFromJwks } from '../../gateway/oauth/client-jwks.js';
import { parseJwkPublicKey } from '../../gateway/service-accounts/jwk-public-key.js';
import { PrivateKeyGivenError, PublicKeyError } from '../../gateway/service-accounts/public-key-errors.js';
import { ed25519KeyCandidates, holds } from '../helpers/property.js';

const ISSUER = 'http://gateway.test';
const AUDIENCES = [ISSUER, `${ISSUER}/v1/oauth/token`];
const ALGORITHMS = ['EdDSA', 'Ed25519', 'ES256', 'PS256'];
const NOW = 1_800_000_000;
const RULES = { algorithms: ALGORITHMS, audiences: AUDIENCES, nowSeconds: NOW };
const CLIENT = randomUUID();

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jws = (header: unknown, claims: unknown, signature = 'c2ln') => `${b64(header)}.${b64(claims)}.${signature}`;

/** Whether the parser refuses only with AssertionRefused (or accepts). */
function refusesCleanly(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch (error) {
    if (error instanceof AssertionRefused) return true;
    throw error;
  }
}

t.test('any text, and any three base64url JSON parts: accepted or refused with AssertionRefused, nothing else', async (t) => {
  holds(
    t,
    fc.property(fc.string({ maxLength: 300 }), (text) => refusesCleanly(() => parseClientAssertion(text, RULES))),
    500,
  );
  holds(
    t,
    fc.property(fc.jsonValue(), fc.jsonValue(), fc.string({ maxLength: 20 }), (header, claims, signature) =>
      refusesCleanly(() => parseClientAssertion(`${b64(header)}.${b64(claims)}.${signature}`, RULES)),
    ),
    500,
  );
  holds(
    t,
    fc.property(fc.integer({ min: MAX_ASSERTION_LENGTH + 1, max: MAX_ASSERTION_LENGTH * 4 }), (length) => {
      const claims = { iss: CLIENT, sub: CLIENT, aud: ISSUER, exp: NOW + 60, jti: 'j', pad: '' };
      const base = jws({ alg: 'EdDSA' }, claims);
      const padded = jws({ alg: 'EdDSA' }, { ...claims, pad: 'x'.repeat(Math.max(0, length - base.length)) });
      try {
        parseClientAssertion(padded, RULES);
        return padded.length <= MAX_ASSERTION_LENGTH;
      } catch (error) {
        return error instanceof AssertionRefused && error.message === 'the assertion is too long';
      }
    }),
    50,
  );
});

/** Claims and a header near the edges of every rule, each part optional. */
const cases = fc.record({
  alg: fc.constantFrom('EdDSA', 'Ed25519', 'ES256', 'PS256', 'RS256', 'HS256', 'none', 'eddsa', ''),
  kid: fc.option(fc.oneof(fc.string({ maxLength: 5 }), fc.constant(''), fc.integer()), { nil: undefined }),
  crit: fc.option(fc.constant(['exp']), { nil: undefined }),
  iss: fc.constantFrom(CLIENT, randomUUID(), 'not-a-uuid', undefined),
  sub: fc.constantFrom(CLIENT, randomUUID(), undefined),
  aud: fc.oneof(
    fc.constantFrom(...AUDIENCES, 'http://other.example', undefined),
    fc.array(fc.constantFrom(...AUDIENCES, 'http://other.example', 1), { maxLength: 12 }),
  ),
  exp: fc.option(fc.integer({ min: -400, max: 700 }), { nil: undefined }),
  iat: fc.option(fc.integer({ min: -400, max: 120 }), { nil: undefined }),
  nbf: fc.option(fc.integer({ min: -400, max: 120 }), { nil: undefined }),
  jti: fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('', 'j'.repeat(257), undefined), fc.integer()),
});

type Case = typeof cases extends fc.Arbitrary<infer C> ? C : never;

/** The rules, as the documentation states them. */
function accepted(c: Case): boolean {
  const at = (offset: number | undefined) => (offset === undefined ? undefined : NOW + offset);
  const [exp, iat, nbf] = [at(c.exp), at(c.iat), at(c.nbf)];
  const auds = typeof c.aud === 'string' ? [c.aud] : Array.isArray(c.aud) && c.aud.length <= 10 ? c.aud : [];
  return (
    ALGORITHMS.includes(c.alg) &&
    c.crit === undefined &&
    (c.kid === undefined || (typeof c.kid === 'string' && c.kid.length > 0)) &&
    c.iss === CLIENT &&
    c.sub === CLIENT &&
    auds.some((a) => typeof a === 'string' && AUDIENCES.includes(a)) &&
    exp !== undefined &&
    exp > NOW - ASSERTION_CLOCK_SKEW_SECONDS &&
    exp - NOW <= MAX_ASSERTION_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS &&
    (iat === undefined || (iat <= NOW + ASSERTION_CLOCK_SKEW_SECONDS && exp - iat <= MAX_ASSERTION_LIFETIME_SECONDS)) &&
    (nbf === undefined || nbf <= NOW + ASSERTION_CLOCK_SKEW_SECONDS) &&
    typeof c.jti === 'string' &&
    c.jti.length > 0 &&
    c.jti.length <= 256
  );
}

t.test('an assertion is accepted exactly when the documented rules hold', async (t) => {
  holds(
    t,
    fc.property(cases, (c) => {
      const header = { alg: c.alg, ...(c.kid === undefined ? {} : { kid: c.kid }), ...(c.crit === undefined ? {} : { crit: c.crit }) };
      const at = (offset: number | undefined) => (offset === undefined ? undefined : NOW + offset);
      const claims = { iss: c.iss, sub: c.sub, aud: c.aud, exp: at(c.exp), iat: at(c.iat), nbf: at(c.nbf), jti: c.jti };
      let parsed: ReturnType<typeof parseClientAssertion> | undefined;
      try {
        parsed = parseClientAssertion(jws(header, claims), RULES);
      } catch (error) {
        if (!(error instanceof AssertionRefused)) throw error;
      }
      if ((parsed !== undefined) !== accepted(c)) throw new Error(`${JSON.stringify(c)}: parser ${parsed ? 'accepted' : 'refused'}`);
      return parsed === undefined || (parsed.claims.clientId === CLIENT && parsed.claims.jti === c.jti && parsed.alg === c.alg);
    }),
    2000,
  );
});

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const edPublic = (raw: Uint8Array) => ({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') });

t.test('JWKS input: any JSON is accepted or refused with a PublicKeyError, nothing else', async (t) => {
  const jwkLike = fc.oneof(
    fc.jsonValue(),
    fc.record({
      kty: fc.constantFrom('OKP', 'EC', 'RSA', 'oct', 'x', 1),
      crv: fc.constantFrom('Ed25519', 'P-256', 'P-384', 'X25519', undefined),
      x: fc.oneof(fc.base64String({ maxLength: 50 }), fc.string({ maxLength: 50 }), fc.constant(undefined)),
      y: fc.oneof(fc.base64String({ maxLength: 50 }), fc.constant(undefined)),
      n: fc.oneof(fc.base64String({ maxLength: 60 }), fc.constant(undefined)),
      e: fc.constantFrom('AQAB', 'AAEAAQ', '', undefined),
      kid: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(undefined)),
      alg: fc.constantFrom('EdDSA', 'ES256', 'PS256', 'none', undefined),
    }),
  );
  holds(
    t,
    fc.property(fc.oneof(fc.jsonValue(), fc.record({ keys: fc.array(jwkLike, { maxLength: 3 }) })), (value) => {
      try {
        clientKeysFromJwks(value, 'now');
        return true;
      } catch (error) {
        if (error instanceof PublicKeyError) return true;
        throw error;
      }
    }),
    500,
  );
});

t.test('JWKS input: a private member anywhere is refused as a private key, without repeating it', async (t) => {
  const publicKey = edPublic(Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  holds(
    t,
    fc.property(
      fc.constantFrom(...PRIVATE_MEMBERS),
      fc.string({ minLength: 8, maxLength: 40 }),
      fc.nat({ max: 1 }),
      fc.boolean(),
      (member, value, index, extra) => {
        const keys = [publicKey, ...(extra ? [{ kty: 'RSA', n: 'x' }] : [])];
        const at = Math.min(index, keys.length - 1);
        keys[at] = { ...keys[at]!, [member]: value };
        try {
          clientKeysFromJwks({ keys }, 'now');
          return false;
        } catch (error) {
          return error instanceof PrivateKeyGivenError && !error.message.includes(value);
        }
      },
    ),
    300,
  );
});

t.test('JWKS input: Ed25519 keys are accepted exactly when the service accounts accept them; only public members are stored', async (t) => {
  holds(
    t,
    fc.property(ed25519KeyCandidates, fc.constantFrom({}, { use: 'sig' }, { alg: 'EdDSA' }, { alg: 'Ed25519', ext: true, x5u: 'ignored' }), (raw, extra) => {
      let serviceAccounts = true;
      try {
        // The service accounts' own rules, through their JWK parser.
        parseJwkPublicKey(edPublic(raw));
      } catch (error) {
        if (!(error instanceof PublicKeyError)) throw error;
        serviceAccounts = false;
      }
      try {
        const [key] = clientKeysFromJwks({ keys: [{ ...edPublic(raw), ...extra }] }, 'now');
        const { kid, ...members } = key!.jwk;
        return (
          serviceAccounts &&
          kid === key!.kid &&
          JSON.stringify(members) === JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: Buffer.from(raw).toString('base64url') })
        );
      } catch (error) {
        if (!(error instanceof PublicKeyError)) throw error;
        return !serviceAccounts;
      }
    }),
    300,
  );
});
