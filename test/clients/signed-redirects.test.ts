// A signed request answered with a redirect (307, 308, 303, ... to another port of 127.0.0.1, i.e.
// another origin): signedFetch and the undici interceptor send nothing to the Location by default
// and fail with RedirectRefusedError naming the status and the origins; when the caller opts in,
// each hop reaches its URL signed for that URL, with a fresh nonce, as HTTP says for its method.
import { generateKeyPairSync } from 'node:crypto';
import t, { type Test } from 'tap';
import { Agent, Client, fetch as undiciFetch, interceptors, request, type Dispatcher } from 'undici';
import { RedirectRefusedError, signedFetch, signingInterceptor, type SignedRequest } from '../../clients/typescript/src/index.js';
import { signingHeadersIn, startLanding, startRedirector, verifyReceived, type RecordingServer } from './redirect-servers.js';

const ACCESS_ID = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';
const BODY = '{"amount":"150.00"}';
const { privateKey } = generateKeyPairSync('ed25519');

async function servers(t: Test): Promise<{ redirector: RecordingServer; landing: RecordingServer }> {
  const landing = await startLanding(t);
  return { redirector: await startRedirector(t, landing), landing };
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The refusal names the status and both origins, and nothing of the request's credentials. */
function refused(
  t: Test,
  error: unknown,
  expected: { reason: string; status: number; origin: string; locationOrigin: string },
  signed: SignedRequest[],
  what: string,
): void {
  t.type(error, RedirectRefusedError, `${what}: RedirectRefusedError`);
  t.match(error, expected, `${what}: ${expected.reason}, ${expected.status}, from ${expected.origin} to ${expected.locationOrigin}`);
  const text = `${(error as Error).message} ${JSON.stringify(error)}`;
  t.match((error as Error).message, `answered ${expected.status}`, `${what}: the message names the status`);
  t.match((error as Error).message, expected.locationOrigin, `${what}: and the Location's origin`);
  t.notMatch(text, ACCESS_ID, `${what}: not the Access ID`);
  for (const { headers } of signed) t.notOk(text.includes(headers.signature!.slice(6, 40)), `${what}: not the signature`);
}

const post = (extra: object = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: BODY,
  accessId: ACCESS_ID,
  privateKey,
  ...extra,
});

t.test('signedFetch refuses every redirect by default and sends nothing to the Location', async (t) => {
  const { redirector, landing } = await servers(t);
  for (const status of [307, 308, 303, 302, 301]) {
    const signed: SignedRequest[] = [];
    const error = await rejection(signedFetch(`${redirector.origin}/${status}/away`, post({ onSigned: (s: SignedRequest) => signed.push(s) })));
    refused(t, error, { reason: 'not_followed', status, origin: redirector.origin, locationOrigin: landing.origin }, signed, `${status}`);
    t.equal(signed.length, 1, `${status}: one request signed`);
  }
  const sameOrigin = await rejection(signedFetch(`${redirector.origin}/307/here`, post()));
  t.match(sameOrigin, { reason: 'not_followed', locationOrigin: redirector.origin }, 'a redirect within the origin too');
  t.same(landing.received, [], 'the other origin received nothing: no x-access-id, Signature, Signature-Input or body');
  t.same(
    redirector.received.map((r) => r.url),
    ['/307/away', '/308/away', '/303/away', '/302/away', '/301/away', '/307/here'],
    'the redirecting server got each request once, and no hop',
  );
  for (const received of redirector.received) verifyReceived(received, privateKey, ACCESS_ID);
});

t.test("signedFetch with followRedirects: 'any-origin' signs each hop for its URL, with a fresh nonce", async (t) => {
  const { redirector, landing } = await servers(t);
  const created = Math.floor(Date.now() / 1000) - 120;
  for (const status of [307, 308]) {
    const signed: SignedRequest[] = [];
    const response = await signedFetch(
      `${redirector.origin}/${status}/away`,
      post({
        followRedirects: 'any-origin',
        created,
        nonce: `first-${status}`,
        headers: { 'content-type': 'application/json', authorization: 'Bearer first-origin-only' },
        onSigned: (s: SignedRequest) => signed.push(s),
      }),
    );
    t.equal(response.status, 200, `${status}: the Location's answer`);
    t.same(await response.json(), { landed: `/landing/${status}?from=away`, method: 'POST' });
    const hop = landing.received.at(-1)!;
    t.match(hop, { method: 'POST', url: `/landing/${status}?from=away`, body: BODY }, `${status}: method and body kept`);
    const params = verifyReceived(hop, privateKey, ACCESS_ID);
    t.not(params.nonce, `first-${status}`, `${status}: a fresh nonce`);
    t.ok(params.created! > created, `${status}: a fresh created`);
    t.equal(signed.length, 2, `${status}: onSigned saw both requests`);
    t.match(signed[1]!.base, `"@authority": ${new URL(landing.origin).host}\n`, `${status}: signed for the new authority`);
    t.notOk(
      hop.rawHeaders.some((h) => h.toLowerCase() === 'authorization'),
      `${status}: Authorization stays with the first origin`,
    );
    t.match(verifyReceived(redirector.received.at(-1)!, privateKey, ACCESS_ID), { nonce: `first-${status}`, created }, `${status}: the first request as given`);
  }
  for (const status of [303, 302, 301]) {
    const response = await signedFetch(`${redirector.origin}/${status}/away`, post({ followRedirects: 'any-origin' }));
    t.equal(response.status, 200);
    const hop = landing.received.at(-1)!;
    t.match(hop, { method: 'GET', url: `/landing/${status}?from=away`, body: '' }, `${status}: a POST becomes a GET without a body`);
    t.same(
      signingHeadersIn(hop)
        .map((h) => h.toLowerCase())
        .sort(),
      ['signature', 'signature-input', 'x-access-id'],
      `${status}: no Content-Digest without a body`,
    );
    t.notOk(
      hop.rawHeaders.some((h) => h.toLowerCase() === 'content-type'),
      `${status}: nor Content-Type`,
    );
    verifyReceived(hop, privateKey, ACCESS_ID);
  }
  const head = await signedFetch(`${redirector.origin}/303/away`, { method: 'HEAD', accessId: ACCESS_ID, privateKey, followRedirects: 'any-origin' });
  t.equal(head.status, 200);
  t.equal(landing.received.at(-1)!.method, 'HEAD', '303 keeps HEAD');
});

t.test("signedFetch with followRedirects: 'same-origin' follows within the origin only; hops are bounded", async (t) => {
  const { redirector, landing } = await servers(t);
  const within = await signedFetch(`${redirector.origin}/307/here`, post({ followRedirects: 'same-origin' }));
  t.equal(within.status, 200);
  const hop = redirector.received.at(-1)!;
  t.match(hop, { method: 'POST', url: '/landing/307?from=here', body: BODY });
  t.not(verifyReceived(hop, privateKey, ACCESS_ID).nonce, verifyReceived(redirector.received.at(-2)!, privateKey, ACCESS_ID).nonce, 'a fresh nonce');

  const signed: SignedRequest[] = [];
  const away = await rejection(
    signedFetch(`${redirector.origin}/308/away`, post({ followRedirects: 'same-origin', onSigned: (s: SignedRequest) => signed.push(s) })),
  );
  refused(t, away, { reason: 'cross_origin', status: 308, origin: redirector.origin, locationOrigin: landing.origin }, signed, 'another origin');
  t.same(landing.received, [], 'nothing reached the other origin');

  const before = redirector.received.length;
  const loop = await rejection(signedFetch(`${redirector.origin}/loop`, { accessId: ACCESS_ID, privateKey, followRedirects: 'same-origin' }));
  t.match(loop, { name: 'RedirectRefusedError', reason: 'too_many_redirects', status: 307, message: /after 5 redirects/ });
  const loops = redirector.received.slice(before);
  t.equal(loops.length, 6, 'the request and 5 hops, then no more');
  t.equal(new Set(loops.map((r) => verifyReceived(r, privateKey, ACCESS_ID).nonce)).size, 6, 'each with its own nonce');

  const none = await rejection(signedFetch(`${redirector.origin}/307/here`, post({ followRedirects: 'same-origin', maxRedirects: 0 })));
  t.match(none, { reason: 'too_many_redirects' }, 'maxRedirects: 0 follows none');
  await t.rejects(signedFetch(redirector.origin, { accessId: ACCESS_ID, privateKey, followRedirects: true as never }), {
    name: 'TypeError',
    message: /followRedirects must be 'same-origin' or 'any-origin'/,
  });
  await t.rejects(signedFetch(redirector.origin, { accessId: ACCESS_ID, privateKey, maxRedirects: -1 }), {
    name: 'TypeError',
    message: /maxRedirects must be an integer/,
  });
});

/** An Agent with the signing interceptor and, when given, undici's redirect interceptor after (or before) it. */
function agent(t: Test, options: { followRedirects?: 'same-origin' | 'any-origin'; redirect?: 'after' | 'before'; signed?: SignedRequest[] } = {}) {
  const signing = signingInterceptor({
    accessId: ACCESS_ID,
    privateKey,
    onSigned: (s) => options.signed?.push(s),
    ...(options.followRedirects ? { followRedirects: options.followRedirects } : {}),
  });
  const redirect = interceptors.redirect({ maxRedirections: 5 });
  const chain = options.redirect === 'after' ? [signing, redirect] : options.redirect === 'before' ? [redirect, signing] : [signing];
  const dispatcher = new Agent().compose(chain);
  t.teardown(() => dispatcher.close());
  return dispatcher;
}

t.test('the interceptor refuses a redirect by default, whoever would follow it', async (t) => {
  const { redirector, landing } = await servers(t);
  const expected = (status: number) => ({ reason: 'not_followed', status, origin: redirector.origin, locationOrigin: landing.origin });
  for (const status of [307, 308, 303]) {
    const signed: SignedRequest[] = [];
    const url = `${redirector.origin}/${status}/away`;
    const alone = await rejection(request(url, { method: 'POST', body: BODY, dispatcher: agent(t, { signed }) }));
    refused(t, alone, expected(status), signed, `${status}, undici.request`);
    const followed = await rejection(request(url, { method: 'POST', body: BODY, dispatcher: agent(t, { redirect: 'after', signed }) }));
    refused(t, followed, expected(status), signed, `${status}, undici's redirect interceptor listed after it`);
    const inner = await rejection(request(url, { method: 'POST', body: BODY, dispatcher: agent(t, { redirect: 'before', signed }) }));
    refused(t, inner, expected(status), signed, `${status}, undici's redirect interceptor listed before it (nearer the connection)`);
    const fetched = await rejection(undiciFetch(url, { method: 'POST', body: BODY, dispatcher: agent(t, { signed }) }));
    t.match(fetched, { name: 'TypeError' }, `${status}, undici.fetch: fails`);
    refused(t, (fetched as Error).cause, expected(status), signed, `${status}, undici.fetch: its cause`);
  }
  t.same(landing.received, [], 'the other origin received nothing');
  t.equal(redirector.received.length, 12, 'each request reached the redirecting server once');
});

t.test("the interceptor with followRedirects lets fetch or undici's redirect interceptor follow, and signs each hop anew", async (t) => {
  const { redirector, landing } = await servers(t);
  for (const status of [307, 308]) {
    const fetched = await undiciFetch(`${redirector.origin}/${status}/away`, {
      method: 'POST',
      body: BODY,
      dispatcher: agent(t, { followRedirects: 'any-origin' }),
    });
    t.equal(fetched.status, 200, `${status}: fetch reached the Location`);
    await fetched.arrayBuffer();
    const hop = landing.received.at(-1)!;
    t.match(hop, { method: 'POST', url: `/landing/${status}?from=away`, body: BODY }, `${status}: method and body kept`);
    t.not(
      verifyReceived(hop, privateKey, ACCESS_ID).nonce,
      verifyReceived(redirector.received.at(-1)!, privateKey, ACCESS_ID).nonce,
      `${status}: verifies for the Location, with a fresh nonce`,
    );
  }
  const seeOther = await request(`${redirector.origin}/303/away`, {
    method: 'POST',
    body: BODY,
    dispatcher: agent(t, { followRedirects: 'any-origin', redirect: 'after' }),
  });
  t.equal(seeOther.statusCode, 200);
  await seeOther.body.text();
  const hop = landing.received.at(-1)!;
  t.match(hop, { method: 'GET', url: '/landing/303?from=away', body: '' }, '303: a GET without a body');
  t.notOk(
    signingHeadersIn(hop).some((h) => h.toLowerCase() === 'content-digest'),
    '303: without Content-Digest',
  );
  verifyReceived(hop, privateKey, ACCESS_ID);

  const within = await request(`${redirector.origin}/307/here`, {
    method: 'POST',
    body: BODY,
    dispatcher: agent(t, { followRedirects: 'same-origin', redirect: 'after' }),
  });
  t.equal(within.statusCode, 200, "'same-origin': followed within the origin");
  await within.body.text();
  t.match(redirector.received.at(-1)!, { method: 'POST', url: '/landing/307?from=here', body: BODY });
  verifyReceived(redirector.received.at(-1)!, privateKey, ACCESS_ID);
  const landed = landing.received.length;
  const signed: SignedRequest[] = [];
  const away = await rejection(
    request(`${redirector.origin}/307/away`, {
      method: 'POST',
      body: BODY,
      dispatcher: agent(t, { followRedirects: 'same-origin', redirect: 'after', signed }),
    }),
  );
  refused(t, away, { reason: 'cross_origin', status: 307, origin: redirector.origin, locationOrigin: landing.origin }, signed, "'same-origin', another origin");
  t.equal(landing.received.length, landed, 'nothing more reached the other origin');
  t.throws(() => signingInterceptor({ accessId: ACCESS_ID, privateKey, followRedirects: 'yes' as never }), {
    name: 'TypeError',
    message: /followRedirects must be/,
  });
});

t.test('the interceptor serves handlers of the earlier undici interface too (onConnect, onHeaders, onError)', async (t) => {
  const { redirector, landing } = await servers(t);
  const client = new Client(redirector.origin);
  t.teardown(() => client.close());
  const dispatch = signingInterceptor({ accessId: ACCESS_ID, privateKey, origin: redirector.origin })(client.dispatch.bind(client));
  const send = (path: string) =>
    new Promise<{ error?: Error; statuses: number[]; body: string }>((resolve) => {
      const statuses: number[] = [];
      let body = '';
      // undici's own type for it: the earlier interface, without onRequestStart.
      const handler: Dispatcher.DispatchHandler = {
        onConnect: () => undefined,
        onHeaders: (status) => (statuses.push(status), true),
        onData: (chunk) => ((body += chunk.toString()), true),
        onComplete: () => resolve({ statuses, body }),
        onError: (error) => resolve({ error, statuses, body }),
      };
      dispatch({ path, method: 'POST', body: BODY }, handler);
    });
  const redirected = await send('/307/away');
  t.type(redirected.error, RedirectRefusedError);
  t.match(redirected.error, { reason: 'not_followed', status: 307, locationOrigin: landing.origin });
  t.same(redirected.statuses, [], 'the redirect never reached the handler');
  const plain = await send('/landing/200');
  t.same(
    [plain.error, plain.statuses, JSON.parse(plain.body)],
    [undefined, [200], { landed: '/landing/200', method: 'POST' }],
    'any other answer passes through',
  );
  t.same(landing.received, []);
});
