// The pipeline invariant against a real gateway (Redis store, live echo upstreams): random methods,
// paths (policy routes and mutations of them), hosts, headers and credentials never get a 5xx,
// and every request an upstream receives was allowed by the policy: its method and exact path
// match a route, and it carried a valid credential with the scope or permission that route needs.
// Random credentials reach nothing.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import type { EchoedRequest } from '../../gateway/examples/echo-upstream.js';
import { checkTarget } from '../../gateway/policy/path-safety.js';
import { signRequest } from '../../gateway/signing/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, rawRequest } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { holdsAsync } from '../helpers/property.js';
import { createServiceAccount, type TestServiceAccount } from '../helpers/signing.js';

const CLIENT_SCOPES = ['sales', 'products'];
const SA_PERMISSIONS = ['view_balance', 'view_transactions'];

interface World {
  tg: TestGateway;
  token: string;
  clientId: string;
  sa: TestServiceAccount;
}

async function world(t: Test): Promise<World> {
  // 127.0.0.1 is a trusted proxy, so X-Forwarded-For is read (and may be refused) too.
  const tg = await startTestGateway(t, { config: { trusted_proxies: ['127.0.0.1'], throttle_max_failures: 100_000 } });
  const client = await createClient(tg, CLIENT_SCOPES);
  return { tg, token: await accessToken(tg, client), clientId: client.client_id, sa: await createServiceAccount(tg, { permissions: SA_PERMISSIONS }) };
}

// ---- what is sent ----

const latin1 = (max: number) =>
  fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: max });
const visible = (max: number) => fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
const method = fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');

/** A policy route with its parameters filled in: its method, a path and the credential it takes. */
function routeRequest(tg: TestGateway) {
  const routes = tg.gateway.policy.current.routes;
  return fc
    .tuple(fc.constantFrom(...routes), fc.stringMatching(/^[A-Za-z0-9_~-]{1,8}$/))
    .map(([route, value]): { method: string; path: string; credential: Credential } => ({
      method: route.method,
      path: route.template.replace(/\{\w+\}/g, value),
      credential: route.auth === 'bearer' ? 'bearer' : 'signed',
    }));
}

/** Mutations of a route path that servers are known to read in different ways. */
const MUTATIONS: Array<(p: string) => string> = [
  (p) => p,
  (p) => `${p}/`,
  (p) => `${p}/..`,
  (p) => p.replace('/v1/', '/v1/x/../'),
  (p) => p.replace('/v1/', '/v1/./'),
  (p) => p.replace('/v1/', '/v1//'),
  (p) => p.replace('/v1', '/V1'),
  (p) => `${p};jsessionid=1`,
  (p) => p.replace(/\/([^/]+)$/, '/%2e%2e/$1'),
  (p) => `${p}%2f..%2fstats`,
  (p) => p.replace(/\//g, '\\'),
  (p) => `${p}%00`,
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  (p) => `${p}?q=1&q=2`,
  (p) => `${p}?`,
  (p) => `${p}#frag`,
  (p) => `${p}%`,
  (p) => `${p}/extra`,
  (p) => p.toUpperCase(),
  (p) => `//evil.example${p}`,
  (p) => `http://evil.example${p}`,
  () => '*',
];
const mutate = (path: string) =>
  fc.oneof(
    { arbitrary: fc.constant(path), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: MUTATIONS.length - 1 }).map((i) => MUTATIONS[i]!(path)), weight: 3 },
    { arbitrary: visible(12).map((junk) => `${path}${junk}`), weight: 1 },
  );

const sfish = fc.oneof(
  fc.constantFrom(
    'sig1=("@method" "@authority" "@path" "@query" "x-access-id");created=1700000000;nonce="n";keyid="k";alg="ed25519"',
    'sig1=:AAAA:',
    'sig1=("@method");created=99999999999999999',
    'a=(',
    '',
    'sig1=?1',
  ),
  latin1(60),
);
type Credential = 'none' | 'random' | 'bearer' | 'signed';
const randomCredentialHeaders = fc.record(
  {
    authorization: fc.oneof(
      latin1(40).map((v) => `Bearer ${v}`),
      fc.constantFrom('Bearer eyJhbGciOiJub25lIn0.e30.', 'Basic YTpi', 'Bearer'),
      latin1(30),
    ),
    'x-access-id': fc.oneof(fc.uuid(), latin1(20)),
    'signature-input': sfish,
    signature: sfish,
    'content-digest': fc.oneof(fc.constant('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:'), latin1(30)),
  },
  { requiredKeys: [] },
);
const extraHeaders = fc.record(
  {
    // Mostly readable (the rest is refused with 400 before anything else is looked at).
    'x-forwarded-for': fc.oneof(
      { arbitrary: fc.constantFrom('10.1.0.5', '203.0.113.9, 10.0.0.1', '2001:db8::7', ''), weight: 4 },
      { arbitrary: fc.oneof(fc.constantFrom('unknown', '6.6.6.6:443'), latin1(20)), weight: 1 },
    ),
    'x-gateway-client-id': fc.constant('spoofed'),
    'x-gateway-permissions': fc.constant('initiate_payment'),
    'x-http-method-override': fc.constant('DELETE'),
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
    'x-custom': latin1(30),
    expect: fc.constant('100-continue'),
  },
  { requiredKeys: [] },
);
const body = fc.option(latin1(40), { nil: undefined });

interface Sent {
  method: string;
  target: string;
  host: string;
  credential: Credential;
  /** False when the signed request was changed after signing. */
  intact: boolean;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Adds the chosen credential; a signed request may then be tampered with. */
function withCredential(
  w: World,
  draft: Omit<Sent, 'intact'>,
  randomHeaders: Record<string, string>,
  tamper: { method?: string; target?: string } | null,
): Sent {
  const headers = { ...draft.headers };
  if (draft.credential === 'random') Object.assign(headers, randomHeaders);
  if (draft.credential === 'bearer') headers.authorization = `Bearer ${w.token}`;
  if (draft.credential !== 'signed') return { ...draft, headers, intact: true };
  let signed: Record<string, string>;
  try {
    signed = signRequest({
      method: draft.method,
      url: `http://${draft.host}${draft.target}`,
      headers,
      ...(draft.body === undefined ? {} : { body: draft.body }),
      accessId: w.sa.account.access_id,
      privateKey: w.sa.privateKey,
    });
  } catch {
    // A target the signer's URL parser refuses cannot be signed: send it unsigned.
    return { ...draft, credential: 'none', headers, intact: true };
  }
  const sent = { ...draft, headers: { ...headers, ...signed }, intact: true };
  if (tamper?.method) sent.method = tamper.method;
  if (tamper?.target) sent.target = tamper.target;
  // Intact when the method and the raw path and query sent are what was signed: the signer signs
  // @path and @query of the URL as WHATWG URL normalises it ("/v1/./x" is signed as "/v1/x"), and
  // RFC 9421 gives "/x" and "/x?" the same @path and @query (an empty query).
  const signedUrl = new URL(`http://${draft.host}${draft.target}`);
  const [sentPath, sentQuery = ''] = splitTarget(sent.target);
  sent.intact = sent.method === draft.method && sentPath === signedUrl.pathname && sentQuery === signedUrl.search.slice(1);
  return sent;
}

// ---- what the upstream may receive ----

function hostOf(host: string): string {
  const h = host.toLowerCase();
  return h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.split(':', 1)[0]!;
}

function splitTarget(target: string): [string, string?] {
  const at = target.indexOf('?');
  return at === -1 ? [target] : [target.slice(0, at), target.slice(at + 1)];
}

/** Why an arrival was not allowed, or undefined when the policy allowed it. */
function disallowed(w: World, sent: Sent, arrived: EchoedRequest): string | undefined {
  if (sent.credential !== 'bearer' && sent.credential !== 'signed') return `a request with ${sent.credential} credentials arrived`;
  if (sent.credential === 'signed' && !sent.intact) return 'a tampered signed request arrived';
  if (arrived.method !== sent.method) return `method ${arrived.method} arrived for ${sent.method}`;
  // The exact path and query; a bare "?" (an empty query) is forwarded as no query, which means the same.
  const [arrivedPath, arrivedQuery = ''] = splitTarget(arrived.url);
  const [sentPath, sentQuery = ''] = splitTarget(sent.target);
  if (arrivedPath !== sentPath || arrivedQuery !== sentQuery) return `${arrived.url} arrived for ${sent.target}`;
  let segments: string[];
  try {
    segments = checkTarget(sent.target).segments;
  } catch {
    return 'an ambiguous path arrived';
  }
  const route = w.tg.gateway.policy.current.match(sent.method, hostOf(sent.host), segments);
  if (!route) return 'no route matches what arrived';
  if (arrived.upstream !== route.upstream) return `arrived at ${arrived.upstream}, the route names ${route.upstream}`;
  if (sent.credential === 'bearer') {
    if (route.auth !== 'bearer' || !route.scopes.every((s) => CLIENT_SCOPES.includes(s))) return `route ${route.id} does not allow the client`;
    if (arrived.headers['x-gateway-client-id'] !== w.clientId) return 'the client identity is wrong';
  } else {
    if (route.auth !== 'signature' || !route.permissions.every((p) => SA_PERMISSIONS.includes(p)))
      return `route ${route.id} does not allow the service account`;
    if (arrived.headers['x-gateway-service-account-id'] !== w.sa.account.id) return 'the service account identity is wrong';
  }
  for (const name of ['authorization', 'signature', 'signature-input', 'x-access-id', 'x-http-method-override']) {
    if (arrived.headers[name] !== undefined) return `${name} was forwarded`;
  }
  if (arrived.headers['x-gateway-permissions'] === 'initiate_payment' || arrived.headers['x-gateway-client-id'] === 'spoofed')
    return 'a spoofed identity header was forwarded';
  return undefined;
}

function checkOutcome(w: World, sent: Sent, status: number, arrivals: EchoedRequest[], responseBody: string): void {
  const where = () =>
    `${sent.method} ${sent.target} Host ${sent.host} (${sent.credential}${sent.intact ? '' : ', tampered'}) ${JSON.stringify(sent.headers).slice(0, 400)} -> ${status} ${responseBody.slice(0, 300)}`;
  if (status >= 500 || status < 100) throw new Error(`server error: ${where()}`);
  if (arrivals.length > 1) throw new Error(`forwarded ${arrivals.length} times: ${where()}`);
  const arrived = arrivals[0];
  if (arrived) {
    const why = disallowed(w, sent, arrived);
    if (why) throw new Error(`${why}: ${where()}`);
  }
}

const arrivalsSince = (w: World, before: { public: number; banking: number }) => [
  ...w.tg.upstreams.public.received.slice(before.public),
  ...w.tg.upstreams.banking.received.slice(before.banking),
];
const counts = (w: World) => ({ public: w.tg.upstreams.public.received.length, banking: w.tg.upstreams.banking.received.length });

/** inject normalises a target as a URL ("/a/../b" becomes "/b"): through it, only targets it sends as written. */
function sentAsIs(target: string): boolean {
  try {
    const url = new URL(target, 'http://gateway.test');
    return `${url.pathname}${url.search}` === target.replace(/\?$/, '');
  } catch {
    return false;
  }
}

/** Mostly the route's own method and credential, sometimes another: both kinds of outcome occur. */
function requestCase(w: World, options: { hosts: fc.Arbitrary<string>; mutatePaths: boolean; expectHeader: boolean }) {
  return routeRequest(w.tg).chain((route) =>
    fc
      .record({
        method: fc.oneof({ arbitrary: fc.constant(route.method), weight: 3 }, { arbitrary: method, weight: 1 }),
        target: options.mutatePaths ? mutate(route.path) : fc.constant(route.path),
        host: options.hosts,
        credential: fc.oneof(
          { arbitrary: fc.constant(route.credential), weight: 3 },
          { arbitrary: fc.constantFrom<Credential>('none', 'random', 'random', 'bearer', 'signed'), weight: 2 },
        ),
        headers: extraHeaders.map((h) => {
          if (!options.expectHeader) delete h.expect;
          return h;
        }),
        body,
        randomHeaders: randomCredentialHeaders,
        tamper: fc.option(
          fc.record({
            method: fc.option(method, { nil: undefined }),
            target: fc.option(options.mutatePaths ? mutate(route.path) : mutate(route.path).filter(sentAsIs), { nil: undefined }),
          }),
          { freq: 4 },
        ),
      })
      .map(({ randomHeaders, tamper, ...draft }) => withCredential(w, draft, randomHeaders, tamper)),
  );
}

t.test('through inject: methods, hosts, headers and credentials', async (t) => {
  const w = await world(t);
  const hosts = fc.oneof(fc.constantFrom('banking.test', '127.0.0.1', 'localhost:8080', 'API.EXAMPLE.COM', '[::1]:80', 'a..b'), visible(15));
  let forwarded = 0;
  await holdsAsync(
    t,
    fc.asyncProperty(requestCase(w, { hosts, mutatePaths: false, expectHeader: true }), async (sent) => {
      const before = counts(w);
      const response = await w.tg.gateway.publicApp.inject({
        method: sent.method as 'GET',
        url: sent.target,
        headers: { ...sent.headers, host: sent.host },
        ...(sent.body === undefined ? {} : { payload: sent.body }),
      });
      const arrivals = arrivalsSince(w, before);
      forwarded += arrivals.length;
      checkOutcome(w, sent, response.statusCode, arrivals, response.body);
    }),
    400,
  );
  t.ok(forwarded > 0, `valid credentials on allowed routes were forwarded (${forwarded}), so the check above had something to check`);
  // Still serving after all of it.
  const after = await w.tg.gateway.publicApp.inject({ url: '/v1/sales/1', headers: { authorization: `Bearer ${w.token}` } });
  t.equal(after.statusCode, 200);
});

t.test('over sockets: raw request targets (mutated route paths), exactly as sent', async (t) => {
  const w = await world(t);
  const { publicPort } = await listen(w.tg);
  let forwarded = 0;
  await holdsAsync(
    t,
    fc.asyncProperty(requestCase(w, { hosts: fc.constant('127.0.0.1'), mutatePaths: true, expectHeader: false }), async (sent) => {
      const before = counts(w);
      // rawRequest writes Host: 127.0.0.1 itself; header values are already free of CR and LF.
      const { host: _host, ...headers } = sent.headers;
      const response = await rawRequest(publicPort, sent.method, sent.target, headers, sent.body ?? '');
      const arrivals = arrivalsSince(w, before);
      forwarded += arrivals.length;
      checkOutcome(w, sent, response.status, arrivals, response.body);
    }),
    150,
  );
  t.ok(forwarded > 0, `some requests were forwarded (${forwarded})`);
});
