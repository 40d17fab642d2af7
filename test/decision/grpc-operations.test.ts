// The gRPC decision listener as operations meet it: one store of nonces and rate limits with the
// proxy and the HTTP decision listener; a deadline on every call; gRPC health that follows readiness
// and the drain; the drain itself (calls answered, connections asked to go, the port closed); and a
// connection Envoy keeps open and pings is neither closed nor policed.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, credentials, status as rpc } from '@grpc/grpc-js';
import t from 'tap';
import { freePort } from '../helpers/gateway-process.js';
import { authorizationClient } from '../../bench/grpc-authorization-client.js';
import { encodeCheck } from '../../bench/grpc-load.js';
import { drainAndClose } from '../../gateway/process/drain.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';
import { recordingStore } from '../helpers/recording-store.js';
import { BANKING_HOST, createServiceAccount } from '../helpers/signing.js';
import { LIMITED_ROUTE } from './decision-policies.js';
import { signed } from './edge.js';
import { allowed, envoyCheck, refused, startGrpcGateway } from './envoy-check.js';

t.test('nonces and rate limits are one with the HTTP decision listener: what gRPC used, HTTP refuses, and the other way round', async (t) => {
  const { tg, client } = await startGrpcGateway(t, { decision_port: 0 }, { store: 'embedded' });
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const overHttp = (headers: Record<string, string | string[]>) =>
    tg.gateway.decisionListener!.inject({ method: 'GET', url: '/envoy/v1/balance', headers: { ...headers, 'x-forwarded-for': '198.51.100.7' } });

  const first = signed(sa, 'GET', '/v1/balance');
  allowed(t, await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: first })));
  const replayed = await overHttp(first);
  t.equal(replayed.statusCode, 401, replayed.body);
  t.equal(replayed.json<{ error: string }>().error, 'nonce_replayed', 'a nonce used over gRPC is refused over HTTP');

  const second = signed(sa, 'GET', '/v1/balance');
  t.equal((await overHttp(second)).statusCode, 200);
  refused(
    t,
    await client.check(envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: second })),
    401,
    'nonce_replayed',
    rpc.UNAUTHENTICATED,
  );
  // And the proxy: the same store.
  const proxied = await tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers: second });
  t.equal(proxied.statusCode, 401);
  t.equal(proxied.json<{ error: string }>().error, 'nonce_replayed');

  // One request a minute on the limited route: spent over gRPC, refused over HTTP.
  const bearer = { authorization: `Bearer ${await accessToken(tg, await createClient(tg, ['sales']))}` };
  allowed(t, await client.check(envoyCheck({ method: 'GET', path: LIMITED_ROUTE, host: 'api.test', headers: bearer })));
  const limited = await tg.gateway.decisionListener!.inject({
    method: 'GET',
    url: `/envoy${LIMITED_ROUTE}`,
    headers: { ...bearer, 'x-forwarded-for': '198.51.100.7' },
  });
  t.equal(limited.statusCode, 429);
  t.equal(limited.headers['x-gateway-error'], 'rate_limited');
});

t.test('every call has a deadline: the listener’s, or just before the caller’s, answered decision_timeout; a call given up is counted', async (t) => {
  let slow = false;
  const { tg, client, port } = await startGrpcGateway(
    t,
    { decision_grpc_deadline_ms: 300 },
    {
      store: 'embedded',
      // consumeNonce is a signed request's last store call: held back past every deadline here.
      wrapStore: (store) =>
        recordingStore(store, [], (name, args) =>
          slow && name === 'consumeNonce' ? sleep(1500).then(() => store.consumeNonce(...(args as Parameters<typeof store.consumeNonce>))) : undefined,
        ),
    },
  );
  const metrics = () => tg.gateway.metrics.registry.metrics();
  const calls = () => tg.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const ask = () => envoyCheck({ method: 'GET', path: '/v1/balance', host: BANKING_HOST, headers: signed(sa, 'GET', '/v1/balance') });
  allowed(t, await client.check(ask()));
  slow = true;
  // The listener's deadline: refused then, not when the store answers (which would have allowed it).
  const late = refused(t, await client.check(ask()), 503, 'decision_timeout', rpc.DEADLINE_EXCEEDED);
  t.equal(late.headers.find((o) => o.header.key === 'retry-after')?.header.value, '1');
  // Envoy's own deadline sooner than the listener's: the listener refuses just before it, so that
  // Envoy has the answer. (On a loaded machine the answer may still reach this client too late: the
  // listener's side is what is asserted.)
  await client.check(ask(), 200).catch(() => undefined);
  await until(() => calls().filter((line) => line.outcome === 'decision_timeout').length === 2, 'the second decision_timeout', 3000);
  t.equal(calls().filter((line) => line.outcome === 'cancelled').length, 0, 'answered, not given up');
  // A caller that gives up (Envoy's client cancelled the request) is counted as such.
  const raw = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  t.teardown(() => raw.close());
  const cancelled = raw.makeUnaryRequest(
    '/envoy.service.auth.v3.Authorization/Check',
    (bytes: Buffer) => bytes,
    (bytes: Buffer) => bytes,
    encodeCheck(ask()),
    () => {},
  );
  await until(async () => /gateway_requests_in_flight\{listener="decision-grpc"\} 1/.test(await metrics()), 'the call in flight', 3000);
  cancelled.cancel();
  await until(
    async () => /gateway_decisions_total\{convention="envoy-grpc",route="unmatched",outcome="cancelled"\} 1/.test(await metrics()),
    'the cancelled call counted',
    3000,
  );
  t.match(
    calls().find((line) => line.outcome === 'cancelled'),
    { listener: 'decision-grpc', status: 499, grpc_status: null },
    'logged as given up',
  );
  slow = false;
  // The slow checks finish in the background; the listener still answers.
  allowed(t, await client.check(ask()));
  await until(async () => /gateway_requests_in_flight\{listener="decision-grpc"\} 0/.test(await metrics()), 'nothing left in flight', 3000);
});

t.test('health follows readiness: a gateway whose store does not answer is NOT_SERVING and refuses store_unavailable', async (t) => {
  const { client } = await startGrpcGateway(t, { redis_url: `redis://127.0.0.1:${await freePort()}` });
  t.equal(await client.health(), 'NOT_SERVING');
  t.equal(await client.health('envoy.service.auth.v3.Authorization'), 'NOT_SERVING');
  const answer = refused(t, await client.check(envoyCheck({ method: 'GET', path: '/v1/sales', host: 'api.test' })), 503, 'store_unavailable', rpc.UNAVAILABLE);
  t.match(answer.body.message, /not forwarded/);
});

t.test('draining: health says NOT_SERVING at once, calls are still answered, then the port closes and the listener stops', async (t) => {
  const { tg, client, port } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const headers = { authorization: `Bearer ${await accessToken(tg, await createClient(tg, ['sales']))}` };
  const ask = () => client.check(envoyCheck({ method: 'GET', path: '/v1/sales', host: 'api.test', headers }));
  t.equal(await client.health(), 'SERVING');
  t.equal(await client.health('envoy.service.auth.v3.Authorization'), 'SERVING');
  t.equal(await client.health('no.such.Service'), 'Health status unknown for service no.such.Service');
  allowed(t, await ask());

  const drained = drainAndClose(tg.gateway, { drainMs: 1500, finishMs: 3000 });
  await until(async () => (await client.health()) === 'NOT_SERVING', 'NOT_SERVING once draining', 1000);
  t.equal(await client.health('envoy.service.auth.v3.Authorization'), 'NOT_SERVING');
  // The connection was asked to go (GOAWAY): the client reconnects, and the call is answered.
  allowed(t, await ask());
  const late = authorizationClient(`127.0.0.1:${port}`);
  t.teardown(() => late.close());
  allowed(t, await late.check(envoyCheck({ method: 'GET', path: '/v1/sales', host: 'api.test', headers })));
  t.equal(await drained, true, 'every call was answered');
  await t.rejects(ask(), { code: rpc.UNAVAILABLE }, 'the port is closed');
});

t.test('a connection Envoy keeps open and pings is kept: no idle close, no ping policing', async (t) => {
  const { tg, port } = await startGrpcGateway(t, {}, { store: 'embedded' });
  // Envoy's HTTP/2 connection_keepalive, at a rate far above any sane setting.
  const pinging = authorizationClient(`127.0.0.1:${port}`, {
    'grpc.keepalive_time_ms': 100,
    'grpc.keepalive_timeout_ms': 1000,
    'grpc.keepalive_permit_without_calls': 1,
  });
  t.teardown(() => pinging.close());
  const headers = { authorization: `Bearer ${await accessToken(tg, await createClient(tg, ['sales']))}` };
  const ask = () => pinging.check(envoyCheck({ method: 'GET', path: '/v1/sales', host: 'api.test', headers }));
  allowed(t, await ask());
  await sleep(1500);
  allowed(t, await ask());
  const peers = tg.logs.lines
    .map((line) => JSON.parse(line) as { msg?: string; listener?: string; peer?: string })
    .filter((line) => line.listener === 'decision-grpc' && line.msg === 'request')
    .map((line) => line.peer);
  t.equal(peers.length, 2);
  t.equal(peers[0], peers[1], 'both calls came over the one connection, kept through 1.5 s of pings');
  t.match(
    await tg.gateway.metrics.registry.getSingleMetricAsString('gateway_open_connections'),
    /gateway_open_connections\{listener="decision-grpc"\} 1\b/,
    "and it is counted as the listener's one open connection",
  );
});
