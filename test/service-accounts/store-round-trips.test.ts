// Store round trips per signed request (a nonce key was once written for every request with a
// known Access ID and random signature bytes): a refused request makes one read-only round
// trip at most and writes nothing; a valid one makes two the first time (a read, then the one
// write, after its signature has verified and it is authorized) and one after that (the write,
// which also confirms the account is the version this instance verified with). Counted on a real
// Redis store wrapped to record each call.
import { randomBytes, randomUUID } from 'node:crypto';
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { recordingStore } from '../helpers/recording-store.js';
import { createServiceAccount, signedInject } from '../helpers/signing.js';

t.test('round trips and writes per signed request', async (t) => {
  const calls: string[] = [];
  const tg = await startTestGateway(t, { wrapStore: (store) => recordingStore(store, calls) });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'], allowed_ips: ['10.0.0.0/8'] });
  const during = async (send: () => Promise<unknown>) => {
    calls.length = 0;
    await send();
    // Last-use recording is batched off the request path; it is not a round trip of the request.
    return calls.filter((name) => name !== 'recordServiceAccountUse');
  };

  // Warm up: background work at start (the signing keys' change watcher reads once) settles first.
  t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '10.1.2.3' })).statusCode, 200);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const valid = await during(async () =>
    t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '10.1.2.3' })).statusCode, 200),
  );
  t.same(valid, ['consumeNonce'], 'an account verified before: the one write, which confirms its version');
  const newcomer = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const first = await during(async () => t.equal((await signedInject(tg, newcomer, { method: 'GET', url: '/v1/balance' })).statusCode, 200));
  t.same(first, ['serviceAccountForRequest', 'consumeNonce'], 'its first request: one read, then the one write');

  const refusals: Array<[string, () => Promise<unknown>]> = [
    [
      'random signature bytes',
      () =>
        signedInject(tg, sa, {
          method: 'GET',
          url: '/v1/balance',
          remoteAddress: '10.1.2.3',
          after: { signature: `sig1=:${randomBytes(64).toString('base64')}:` },
        }),
    ],
    [
      'unknown Access ID',
      () => signedInject(tg, { ...sa, account: { ...sa.account, access_id: randomUUID() } }, { method: 'GET', url: '/v1/balance', remoteAddress: '10.1.2.3' }),
    ],
    ['address not allowed', () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '192.0.2.1' })],
    ['permission missing', () => signedInject(tg, sa, { method: 'POST', url: '/v1/transfers', body: '{}', remoteAddress: '10.1.2.3' })],
    [
      'signature expired',
      () => signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '10.1.2.3', sign: { created: Math.floor(Date.now() / 1000) - 3600 } }),
    ],
  ];
  for (const [name, send] of refusals) {
    const made = await during(async () => t.ok(((await send()) as { statusCode: number }).statusCode >= 400, name));
    t.ok(made.length <= 1, `${name}: ${made.length} round trip(s)`);
    t.notOk(made.includes('consumeNonce'), `${name}: nothing written`);
  }

  const nonce = randomUUID();
  await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '10.1.2.3', sign: { nonce } });
  const replay = await during(async () =>
    t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', remoteAddress: '10.1.2.3', sign: { nonce } })).statusCode, 401),
  );
  t.same(replay, ['consumeNonce'], 'a replay is refused by the consume step (the used nonce is not written again)');
});
