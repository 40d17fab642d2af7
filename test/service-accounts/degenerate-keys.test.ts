// Small-order and non-canonical Ed25519 public keys against a real gateway (Redis store): the admin
// API refuses to register them, and one already in the store is unusable, even with a signature
// that node:crypto alone accepts for any message (R = base point, S = 1 against the identity key).
import { createPublicKey, generateKeyPairSync, randomUUID, verify, type KeyObject } from 'node:crypto';
import t from 'tap';
import { sshFingerprint } from '../../gateway/service-accounts/ssh-public-key.js';
import { contentDigest, headerFields, requestFromUrl, requiredComponents, signMessage } from '../../gateway/signing/index.js';
import { ed25519PublicBlob } from '../../gateway/signing/ssh-wire.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { adminInject, BANKING_HOST, createServiceAccount } from '../helpers/signing.js';
import { serviceAccountRecord } from '../store/contract.js';

const hex = (s: string) => Buffer.from(s, 'hex');
const sshLine = (raw: Buffer) => `ssh-ed25519 ${ed25519PublicBlob(raw).toString('base64')} degenerate@test`;

const IDENTITY = '0100000000000000000000000000000000000000000000000000000000000000';
const SMALL_ORDER = 'for which signatures can be forged without any private key';
const NOT_REDUCED = 'its encoding is not canonical (y is not reduced modulo 2^255 - 19)';
const NEGATIVE_ZERO = 'its encoding is not canonical (x = 0 with the sign bit set)';

// Every encoding of the 8 small-order points, and a y with no x on the curve.
const REFUSED: [key: string, reason: string][] = [
  [IDENTITY, `it is the identity point, ${SMALL_ORDER}`],
  ['ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', `it is a point of small order 2, ${SMALL_ORDER}`],
  ['0000000000000000000000000000000000000000000000000000000000000000', `it is a point of small order 4, ${SMALL_ORDER}`],
  ['0000000000000000000000000000000000000000000000000000000000000080', `it is a point of small order 4, ${SMALL_ORDER}`],
  ['c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', `it is a point of small order 8, ${SMALL_ORDER}`],
  ['c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa', `it is a point of small order 8, ${SMALL_ORDER}`],
  ['26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', `it is a point of small order 8, ${SMALL_ORDER}`],
  ['26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', `it is a point of small order 8, ${SMALL_ORDER}`],
  ['0100000000000000000000000000000000000000000000000000000000000080', NEGATIVE_ZERO],
  ['ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', NEGATIVE_ZERO],
  ['edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', NOT_REDUCED],
  ['edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', NOT_REDUCED],
  ['eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', NOT_REDUCED],
  ['eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', NOT_REDUCED],
  ['0200000000000000000000000000000000000000000000000000000000000000', 'it is not a point on the Ed25519 curve'],
];

/** R = the base point, S = 1: [S]B = R + [k]A holds whenever [k]A is the identity, for every k when A is. */
const FORGED = Buffer.concat([hex('5866666666666666666666666666666666666666666666666666666666666666'), Buffer.from([1]), Buffer.alloc(31)]);

const TRANSFER = JSON.stringify({ amount: '10.00', currency: 'BRL', to: 'pix-key' });

/** A POST /v1/transfers with valid Signature-Input, Content-Digest and parameters; the signature is `forged` unless given a key. */
function transferRequest(accessId: string, signWith?: KeyObject): { headers: Record<string, string>; base: string } {
  const headers = { host: BANKING_HOST, 'content-type': 'application/json', 'x-access-id': accessId, 'content-digest': contentDigest(Buffer.from(TRANSFER)) };
  const request = requestFromUrl('POST', `http://${BANKING_HOST}/v1/transfers`, headerFields(Object.entries(headers)));
  const params = { created: Math.floor(Date.now() / 1000), nonce: randomUUID(), keyid: accessId, alg: 'ed25519' };
  const signed = signMessage(request, requiredComponents(true), params, signWith ?? generateKeyPairSync('ed25519').privateKey);
  const signature = signWith ? signed.signature : signed.signature.replace(/:[A-Za-z0-9+/=]+:/, `:${FORGED.toString('base64')}:`);
  return { headers: { ...headers, 'signature-input': signed['signature-input'], signature }, base: signed.base };
}

function nodeAccepts(base: string, raw: Buffer): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  return verify(null, Buffer.from(base, 'utf8'), key, FORGED);
}

function send(tg: TestGateway, headers: Record<string, string>) {
  return tg.gateway.publicApp.inject({ method: 'POST', url: '/v1/transfers', headers, payload: TRANSFER });
}

let tg: TestGateway;

t.before(async () => {
  tg = await startTestGateway(t);
});

t.test('the admin API refuses every degenerate key, says why, and stores nothing', async (t) => {
  await createServiceAccount(tg, { permissions: ['initiate_payment'] });
  const list = async () => (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json();
  const before = await list();
  for (const [key, reason] of REFUSED) {
    const response = await adminInject(tg, {
      method: 'POST',
      url: '/admin/v1/service-accounts',
      payload: { description: 'degenerate', public_key: sshLine(hex(key)), permissions: ['initiate_payment'] },
    });
    t.equal(response.statusCode, 400, `${key}: ${response.body}`);
    const body = response.json();
    t.equal(body.error, 'validation_error');
    t.equal(body.field, 'public_key');
    t.equal(body.message, `public_key: is not a usable Ed25519 public key: ${reason}`);
  }
  t.same(await list(), before, 'the list is unchanged');
});

t.test('a genuine transfer built the same way is forwarded (the baseline)', async (t) => {
  const sa = await createServiceAccount(tg, { permissions: ['initiate_payment'] });
  const received = tg.upstreams.banking.received.length;
  const response = await send(tg, transferRequest(sa.account.access_id, sa.privateKey).headers);
  t.equal(response.statusCode, 200, response.body);
  t.equal(tg.upstreams.banking.received.length, received + 1);
});

// A stored key from before these rules (or written around the admin API): the identity, and other
// small-order encodings, for which the forgery verifies under node:crypto for 1 message in `order`.
const STORED: [name: string, key: string][] = [
  ['the identity', IDENTITY],
  ['the identity, encoded with y = p + 1', 'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'],
  ['the all-zero key (order 4)', '0000000000000000000000000000000000000000000000000000000000000000'],
  ['a point of order 8', 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'],
];

for (const [name, key] of STORED) {
  t.test(`a stored account with ${name} as key: a forgery node:crypto accepts gets 401 signature_invalid and is never forwarded`, async (t) => {
    const raw = hex(key);
    const record = serviceAccountRecord({
      publicKey: sshLine(raw),
      publicKeyBytes: raw.toString('base64url'),
      fingerprint: sshFingerprint(ed25519PublicBlob(raw)),
      permissions: ['initiate_payment'],
      allowedIps: ['0.0.0.0/0', '::/0'],
    });
    t.equal(await tg.gateway.store.createServiceAccount(record), true);

    // Try nonces as an attacker would, until plain node:crypto accepts the forged signature.
    let request = transferRequest(record.accessId);
    for (let tries = 1; !nodeAccepts(request.base, raw); tries++) {
      if (tries > 200) throw new Error('no nonce made the forgery verify under node:crypto');
      request = transferRequest(record.accessId);
    }
    t.ok(nodeAccepts(request.base, raw), 'node:crypto.verify accepts the forged signature over this signature base');

    const received = tg.upstreams.banking.received.length;
    const response = await send(tg, request.headers);
    t.equal(response.statusCode, 401, response.body);
    const body = response.json<Record<string, string>>();
    t.match(body, { error: 'signature_invalid', signature_base: request.base }, 'the base the gateway computed is the one the forger signed');
    t.equal(body.registered_keys, record.fingerprint, "and the refusal names the registered (degenerate) key's fingerprint");
    t.equal(tg.upstreams.banking.received.length, received, 'the banking upstream received nothing');
  });
}
