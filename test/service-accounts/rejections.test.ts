// Every way a signed banking request is refused: the right status and code, the catalog body,
// Accept-Signature on 401, the metric counted by reason, and the upstream never contacted.
import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { adminInject, authFailures, createServiceAccount, customSignature, signedHeaders, signedInject, type TestServiceAccount } from '../helpers/signing.js';

const now = () => Math.floor(Date.now() / 1000);

async function expectRejected(
  t: Test,
  tg: TestGateway,
  send: () => Promise<LightMyRequestResponse>,
  expected: { status: number; code: string; message?: string | RegExp; details?: string[] },
): Promise<LightMyRequestResponse> {
  const before = await authFailures(tg, expected.code);
  const contacted = tg.upstreams.banking.received.length;
  const response = await send();
  t.equal(response.statusCode, expected.status, `status for ${expected.code}: ${response.body}`);
  const body = response.json<Record<string, string>>();
  // Only a signature that does not verify carries the base the gateway computed and the registered
  // keys; a signature outside its window, its created and the gateway's time.
  const details = expected.details ?? (expected.code === 'signature_invalid' ? ['registered_keys', 'signature_base'] : []);
  const members = ['error', 'message', 'request_id', ...details].sort();
  t.same(Object.keys(body).sort(), members, 'the catalog error body');
  t.equal(body.error, expected.code);
  t.equal(body.request_id, String(response.headers['x-request-id'] ?? body.request_id));
  if (expected.message instanceof RegExp) t.match(body.message, expected.message);
  else if (expected.message !== undefined) t.equal(body.message, expected.message);
  t.ok(body.message && body.message.length > 0, 'a message says why');
  if (expected.status === 401)
    t.match(
      String(response.headers['accept-signature']),
      /^sig1=\("@method" "@authority" "@path" "@query" "x-access-id"( "content-digest")?\);created;nonce(;keyid="[0-9a-f-]{36}")?;alg="ed25519"$/,
    );
  else t.equal(response.headers['accept-signature'], undefined);
  t.equal(await authFailures(tg, expected.code), before + 1, `gateway_auth_failures_total{reason="${expected.code}"} counted once`);
  t.equal(tg.upstreams.banking.received.length, contacted, 'the upstream was not contacted');
  return response;
}

let tg: TestGateway;
let sa: TestServiceAccount;

t.before(async () => {
  tg = await startTestGateway(t);
  sa = await createServiceAccount(tg, { permissions: ['view_balance', 'view_transactions', 'initiate_payment'], account_id: 'acct-42' });
});

t.test('a correctly signed request is forwarded (the baseline the rejections differ from)', async (t) => {
  const response = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' });
  t.equal(response.statusCode, 200, response.body);
});

t.test('unsigned and unknown', async (t) => {
  await expectRejected(t, tg, () => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance' }), { status: 401, code: 'signature_missing' });
  const response = await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { signature: undefined } }), {
    status: 401,
    code: 'signature_missing',
  });
  t.equal(
    response.headers['accept-signature'],
    `sig1=("@method" "@authority" "@path" "@query" "x-access-id");created;nonce;keyid="${sa.account.access_id}";alg="ed25519"`,
  );

  const stranger = { ...sa, account: { ...sa.account, access_id: randomUUID() } };
  await expectRejected(t, tg, () => signedInject(tg, stranger, { method: 'GET', url: '/v1/balance' }), { status: 401, code: 'unknown_access_id' });
  await expectRejected(t, tg, () => signedInject(tg, { ...sa, account: { ...sa.account, access_id: 'not-a-uuid' } }, { method: 'GET', url: '/v1/balance' }), {
    status: 401,
    code: 'unknown_access_id',
  });
});

t.test('a deleted account is refused at once', async (t) => {
  const doomed = await createServiceAccount(tg, { permissions: ['view_balance'] });
  t.equal((await signedInject(tg, doomed, { method: 'GET', url: '/v1/balance' })).statusCode, 200);
  const deleted = await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${doomed.account.id}` });
  t.equal(deleted.statusCode, 204);
  await expectRejected(t, tg, () => signedInject(tg, doomed, { method: 'GET', url: '/v1/balance' }), { status: 401, code: 'unknown_access_id' });
});

t.test('a bad signature', async (t) => {
  const forged = `sig1=:${randomBytes(64).toString('base64')}:`;
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { signature: forged } }), {
    status: 401,
    code: 'signature_invalid',
    message: /^The signature does not verify with this service account's public key \(SHA256:[A-Za-z0-9+/]{43}\) over the signature base the gateway computed/,
  });
  const other = await createServiceAccount(tg, { permissions: ['view_balance'] });
  // Signed with another account's key but presented under this Access ID.
  await expectRejected(t, tg, () => signedInject(tg, { ...other, account: sa.account }, { method: 'GET', url: '/v1/balance' }), {
    status: 401,
    code: 'signature_invalid',
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { 'signature-input': 'sig1=("@method"' } }), {
    status: 401,
    code: 'signature_malformed',
    message: /Signature-Input is not a valid structured field dictionary/,
  });
});

t.test('each covered part tampered', async (t) => {
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'POST', sendMethod: 'GET', url: '/v1/balance' }), {
    status: 401,
    code: 'signature_invalid',
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { host: 'evil.test' } }), {
    status: 401,
    code: 'signature_invalid',
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/transactions/1', sendUrl: '/v1/transactions/2' }), {
    status: 401,
    code: 'signature_invalid',
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/transactions?page=1', sendUrl: '/v1/transactions?page=2' }), {
    status: 401,
    code: 'signature_invalid',
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/transactions?page=1', sendUrl: '/v1/transactions' }), {
    status: 401,
    code: 'signature_invalid',
  });
  const json = { 'content-type': 'application/json' };
  await expectRejected(
    t,
    tg,
    () => signedInject(tg, sa, { method: 'POST', url: '/v1/transfers', headers: json, body: '{"amount":1}', sendBody: '{"amount":9}' }),
    {
      status: 401,
      code: 'digest_mismatch',
      message: 'Content-Digest does not match the request body.',
    },
  );
  // The body and its digest both replaced: the digest is covered, so the signature fails.
  const replaced = signedHeaders(sa, { method: 'POST', url: '/v1/transfers', headers: json, body: '{"amount":9}' })['content-digest'] as string;
  await expectRejected(
    t,
    tg,
    () =>
      signedInject(tg, sa, {
        method: 'POST',
        url: '/v1/transfers',
        headers: json,
        body: '{"amount":1}',
        sendBody: '{"amount":9}',
        after: { 'content-digest': replaced },
      }),
    { status: 401, code: 'signature_invalid' },
  );
  const other = await createServiceAccount(tg, { permissions: ['view_balance'] });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { 'x-access-id': other.account.access_id } }), {
    status: 401,
    code: 'signature_keyid_mismatch',
    message: 'No signature has a keyid equal to the x-access-id header.',
  });
});

t.test('required components and parameters', async (t) => {
  const base = ['@method', '@authority', '@path', '@query', 'x-access-id'];
  for (const left of base) {
    await expectRejected(
      t,
      tg,
      () =>
        tg.gateway.publicApp.inject({
          method: 'GET',
          url: '/v1/balance',
          headers: customSignature(sa, { method: 'GET', url: '/v1/balance', components: base.filter((c) => c !== left) }),
        }),
      {
        status: 401,
        code: 'signature_components_missing',
        message: `The signature must also cover ${JSON.stringify(left)}.`,
      },
    );
  }
  const body = '{"amount":1}';
  const digested = signedHeaders(sa, { method: 'POST', url: '/v1/transfers', body })['content-digest'] as string;
  await expectRejected(
    t,
    tg,
    () =>
      tg.gateway.publicApp.inject({
        method: 'POST',
        url: '/v1/transfers',
        payload: body,
        headers: {
          ...customSignature(sa, { method: 'POST', url: '/v1/transfers', components: base }),
          'content-digest': digested,
          'content-type': 'application/json',
        },
      }),
    { status: 401, code: 'signature_components_missing', message: 'The signature must also cover "content-digest".' },
  );
  // Covered but not sent.
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'POST', url: '/v1/transfers', body, after: { 'content-digest': undefined } }), {
    status: 401,
    code: 'digest_mismatch',
    message: 'A request with a body needs a Content-Digest header (sha-256 or sha-512).',
  });
  await expectRejected(
    t,
    tg,
    () =>
      tg.gateway.publicApp.inject({
        method: 'POST',
        url: '/v1/transfers',
        payload: body,
        headers: { ...customSignature(sa, { method: 'POST', url: '/v1/transfers', components: base }), 'content-type': 'application/json' },
      }),
    { status: 401, code: 'signature_components_missing', message: 'The signature must also cover "content-digest".' },
  );
  await expectRejected(
    t,
    tg,
    () =>
      tg.gateway.publicApp.inject({
        method: 'GET',
        url: '/v1/balance',
        headers: customSignature(sa, { method: 'GET', url: '/v1/balance', components: base, params: { alg: 'rsa-pss-sha512' } }),
      }),
    {
      status: 401,
      code: 'signature_algorithm_unsupported',
    },
  );
  const noNonce = customSignature(sa, { method: 'GET', url: '/v1/balance', components: base, params: { nonce: 'x'.repeat(129) } });
  await expectRejected(t, tg, () => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers: noNonce }), {
    status: 401,
    code: 'signature_parameters_invalid',
    message: /nonce/,
  });
});

t.test('freshness: created window, expires, single-use nonce', async (t) => {
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { created: now() - 301 } }), {
    status: 401,
    code: 'signature_expired',
    details: ['created', 'gateway_time'],
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { created: now() + 120 } }), {
    status: 401,
    code: 'signature_not_yet_valid',
    details: ['created', 'gateway_time'],
  });
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { created: now() - 60, expires: now() - 1 } }), {
    status: 401,
    code: 'signature_expired',
    message: 'The signature has expired.',
  });
  t.equal(
    (await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { created: now() - 250, expires: now() + 30 } })).statusCode,
    200,
    'inside the window',
  );

  const headers = signedHeaders(sa, { method: 'GET', url: '/v1/balance' });
  t.equal((await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers })).statusCode, 200, 'first use');
  await expectRejected(t, tg, () => tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers }), { status: 401, code: 'nonce_replayed' });
  // The same nonce under another Access ID is a different nonce.
  const other = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const nonce = /nonce="([^"]+)"/.exec(String(headers['signature-input']))![1]!;
  t.equal((await signedInject(tg, other, { method: 'GET', url: '/v1/balance', sign: { nonce } })).statusCode, 200, 'nonces are per Access ID');
});

t.test('two x-access-id headers', async (t) => {
  const other = await createServiceAccount(tg, { permissions: ['view_balance'] });
  await expectRejected(
    t,
    tg,
    () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { 'x-access-id': [sa.account.access_id, other.account.access_id] } }),
    {
      status: 401,
      code: 'access_id_conflict',
    },
  );
  await expectRejected(
    t,
    tg,
    () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', after: { 'x-access-id': [sa.account.access_id, sa.account.access_id] } }),
    {
      status: 401,
      code: 'access_id_conflict',
    },
  );
});

t.test('a missing permission', async (t) => {
  await expectRejected(t, tg, () => signedInject(tg, sa, { method: 'GET', url: '/v1/account' }), {
    status: 403,
    code: 'permission_denied',
    message: 'This route requires the permission view_account_details.',
  });
});

t.test('a body over the limit is refused before it is buffered whole', async (t) => {
  const small = await startTestGateway(t, { config: { max_body_bytes: 1024 } });
  const account = await createServiceAccount(small);
  const body = JSON.stringify({ pad: 'x'.repeat(2000) });
  const response = await signedInject(small, account, { method: 'POST', url: '/v1/transfers', headers: { 'content-type': 'application/json' }, body });
  t.equal(response.statusCode, 413);
  t.equal(response.json().error, 'body_too_large');
  t.equal(response.json().message, 'The request body is larger than 1024 bytes.');
  t.equal(small.upstreams.banking.received.length, 0);
  const fits = await signedInject(small, account, { method: 'POST', url: '/v1/transfers', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  t.equal(fits.statusCode, 200, fits.body);
});

t.test('logs show the Access ID only partly hidden', async (t) => {
  const full = sa.account.access_id;
  t.notOk(tg.logs.text.includes(full), 'the full Access ID is in no log line');
  t.ok(
    tg.logs.lines.some((l) => l.includes('signed request rejected') && l.includes(sa.account.access_id_hint)),
    'rejections are logged with the hint',
  );
  t.notOk(tg.logs.text.includes('PRIVATE KEY'));
});
