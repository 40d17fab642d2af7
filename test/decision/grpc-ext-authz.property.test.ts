// Properties of the gRPC decision listener over the CheckRequest's fields, through the real client:
// whatever Envoy (or anything else that reaches the port) sends, every call is answered with a
// CheckResponse (never a gRPC error, never a crash), a refusal is a catalog error with its status in
// the body, header and denied_response alike, and nothing is allowed that the policy does not grant
// the credential that was sent: the route matched is of the request's method, of the credential's
// scheme, and asks nothing the credential lacks; a signature is honoured only for the very request it signed.
import fc from 'fast-check';
import t from 'tap';
import { ERRORS } from '../../gateway/errors.js';
import type { CheckRequest } from '../../gateway/decision/grpc/check-messages.js';
import { signRequest } from '../../gateway/signing/index.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { holdsAsync } from '../helpers/property.js';
import { BANKING_HOST, createServiceAccount } from '../helpers/signing.js';
import { DELEGATED_ROUTE, LIMITED_ROUTE } from './decision-policies.js';
import { answered, envoyCheck, metadataOf, startGrpcGateway } from './envoy-check.js';

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'get', '', 'GE T'];
const PATHS = [
  '/v1/sales',
  '/v1/sales/42',
  '/v1/sales/42/refund',
  '/v1/products',
  '/v1/balance',
  '/v1/account',
  '/v1/transfers',
  LIMITED_ROUTE,
  DELEGATED_ROUTE,
  '/v1/sales/%2e%2e/x',
  '//v1/sales',
  '/v1/sales?x=1',
  '/v1/balance?',
  '',
  '*',
  'http://elsewhere/v1/sales',
];
const HOSTS = ['api.test', BANKING_HOST, 'other.test', '', 'BANKING.TEST', `${BANKING_HOST}:443`];
const HEADER_NAMES = [
  'authorization',
  'x-access-id',
  'signature',
  'signature-input',
  'content-digest',
  'content-length',
  'transfer-encoding',
  'x-envoy-auth-partial-body',
  'x-forwarded-for',
  'dpop',
  'host',
  ':authority',
  'constructor',
  '__proto__',
  'x-gateway-client-id',
  'traceparent',
];

const text = fc.string({ maxLength: 40 });
const value = fc.oneof(text, fc.constantFrom('', '0', '12', 'false', 'true', 'chunked', 'Bearer x', '198.51.100.1', 'sha-256=:AAAA:'));
const credential = fc.constantFrom('none', 'bearer-sales', 'bearer-products', 'signed', 'signed-then-changed');
const change = fc.constantFrom('method', 'path', 'host', 'body');

const anything = fc.record({
  method: fc.oneof(fc.constantFrom(...METHODS), text),
  path: fc.oneof(
    fc.constantFrom(...PATHS),
    text.map((s) => `/${s}`),
  ),
  host: fc.oneof(fc.constantFrom(...HOSTS), text),
  extra: fc.dictionary(fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/)), value, { maxKeys: 6 }),
  body: fc.option(fc.oneof(text, fc.constantFrom('{"amount":100}')), { nil: undefined }),
  rawBody: fc.boolean(),
  partial: fc.boolean(),
  raw: fc.boolean(),
  source: fc.option(fc.constantFrom('198.51.100.7', '2001:db8::7', '127.0.0.1', 'not-an-address', ''), { nil: undefined }),
  credential,
  change,
});

/** Requests as Envoy sends them for real clients: most are allowed, so the grant is tested as often as the refusals. */
const plausible = fc.record({
  method: fc.constantFrom('GET', 'GET', 'POST'),
  path: fc.constantFrom('/v1/sales', '/v1/sales/42?x=1', '/v1/products', '/v1/balance', '/v1/account', LIMITED_ROUTE, DELEGATED_ROUTE),
  host: fc.constantFrom('api.test', BANKING_HOST),
  extra: fc.dictionary(fc.constantFrom('x-app-trace', 'x-gateway-client-id', 'x-real-ip', 'traceparent'), value, { maxKeys: 2 }),
  body: fc.constant(undefined),
  rawBody: fc.boolean(),
  partial: fc.constant(false),
  raw: fc.boolean(),
  source: fc.constant(undefined),
  credential: fc.constantFrom('bearer-sales', 'bearer-sales', 'bearer-products', 'signed', 'signed', 'signed-then-changed', 'none'),
  change,
});

const shape = fc.oneof({ arbitrary: anything, weight: 1 }, { arbitrary: plausible, weight: 2 });

t.test('every Check is answered, refusals are catalog errors, and nothing is allowed the policy does not grant', async (t) => {
  const { tg, client } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const bearers: Record<string, { clientId: string; scope: string; token: string }> = {};
  for (const scope of ['sales', 'products']) {
    const oauthClient = await createClient(tg, [scope]);
    bearers[`bearer-${scope}`] = { clientId: oauthClient.client_id, scope, token: await accessToken(tg, oauthClient) };
  }
  const sa = await createServiceAccount(tg, { permissions: ['view_balance'] });
  const routes = tg.gateway.policy.current.routes;
  let allowedCount = 0;
  let refusedCount = 0;

  await holdsAsync(
    t,
    fc.asyncProperty(shape, async (s) => {
      let headers: Record<string, string> = { ...s.extra };
      let { method, path, host, body } = s;
      let signedFor: string | undefined;
      const bearer = bearers[s.credential];
      if (bearer) headers.authorization = `Bearer ${bearer.token}`;
      if (s.credential.startsWith('signed')) {
        try {
          const signedHeaders = signRequest({
            method,
            url: `http://${host}${path}`,
            ...(body === undefined ? {} : { body }),
            accessId: sa.account.access_id,
            privateKey: sa.privateKey,
          });
          headers = { ...headers, ...signedHeaders };
          signedFor = `${method} ${host} ${path} ${body ?? ''}`;
        } catch {
          // Not a request the signing library can sign (no URL): sent unsigned.
        }
        if (s.credential === 'signed-then-changed' && signedFor !== undefined) {
          if (s.change === 'method') method = method === 'GET' ? 'POST' : 'GET';
          if (s.change === 'path') path = `${path}x`;
          if (s.change === 'host') host = `x${host}`;
          if (s.change === 'body') body = `${body ?? ''}!`;
        }
      }
      const ask: CheckRequest = envoyCheck({
        method,
        path,
        host,
        headers,
        ...(body === undefined ? {} : s.rawBody ? { rawBody: Buffer.from(body) } : { body }),
        partial: s.partial,
        raw: s.raw,
        ...(s.source === undefined ? {} : { client: s.source }),
      });
      const answer = await client.check(ask);
      const code = answer.status?.code ?? 0;
      if (code !== 0) {
        refusedCount++;
        const denied = answer.denied_response;
        const error = JSON.parse(denied?.body ?? '{}') as { error: keyof typeof ERRORS };
        return (
          answer.ok_response === undefined &&
          error.error in ERRORS &&
          denied?.status.code === ERRORS[error.error].status &&
          answered(denied.headers, 'x-gateway-error') === error.error
        );
      }
      allowedCount++;
      const metadata = metadataOf(answer);
      const route = routes.find((r) => r.id === metadata.route);
      if (!route || route.method !== method || answer.denied_response !== undefined) return false;
      if (metadata.principal === 'client')
        return (
          bearer !== undefined && route.auth === 'bearer' && metadata.client_id === bearer.clientId && route.scopes.every((scope) => scope === bearer.scope)
        );
      return (
        s.credential === 'signed' &&
        signedFor === `${method} ${host} ${path} ${body ?? ''}` &&
        route.auth === 'signature' &&
        metadata.service_account_id === sa.account.id &&
        route.permissions.every((permission) => permission === 'view_balance')
      );
    }),
    300,
  );
  t.ok(allowedCount > 0 && refusedCount > 0, `both answers came (${allowedCount} allowed, ${refusedCount} refused)`);
  t.equal(tg.upstreams.public.received.length + tg.upstreams.banking.received.length, 0, 'nothing reached an upstream');
});
