// Upstreams named in the configuration: each gets its own connection pool, with its own timeout and
// connection limit, and each route reaches the upstream its policy names.
import t, { type Test } from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { serveOnLoopback } from '../helpers/loopback-server.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { bearerPolicy, policyDirWith } from '../helpers/policy-dir.js';

interface CountingUpstream {
  url: string;
  /** Paths received, in order. */
  paths: string[];
  /** The most requests it was answering at once. */
  maxInFlight: number;
}

/** An upstream on a port of its own that answers each request after `delayMs`, counting how many it holds at once. */
async function countingUpstream(t: Test, name: string, delayMs: number): Promise<CountingUpstream> {
  const upstream: CountingUpstream = { url: '', paths: [], maxInFlight: 0 };
  let inFlight = 0;
  upstream.url = await serveOnLoopback(t, (request, response) => {
    upstream.paths.push(request.url ?? '');
    upstream.maxInFlight = Math.max(upstream.maxInFlight, ++inFlight);
    const timer = setTimeout(() => {
      inFlight--;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ upstream: name, path: request.url }));
    }, delayMs);
    response.on('close', () => clearTimeout(timer));
  });
  return upstream;
}

t.test('two more upstreams: each route reaches its own, with its own timeout', async (t) => {
  // Both answer after 2 s: within the ledger's timeout, past the reports upstream's (undici checks
  // the time to the response headers about every half second, so the margin is wide).
  const ledger = await countingUpstream(t, 'ledger', 2000);
  const reports = await countingUpstream(t, 'reports', 2000);
  const dir = policyDirWith(t, { 'ledger.yaml': bearerPolicy('ledger'), 'reports.yaml': bearerPolicy('reports') });
  const tg = await startTestGateway(t, {
    store: 'embedded',
    config: { policies_dir: dir, upstreams: { ledger: { url: ledger.url, timeout_ms: 5000 }, reports: { url: reports.url, timeout_ms: 200 } } },
  });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  const get = (url: string) => tg.gateway.publicApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  const [fromLedger, fromReports, fromPublic] = await Promise.all([get('/v1/ledger/7'), get('/v1/reports/8'), get('/v1/sales/9')]);
  t.equal(fromLedger.statusCode, 200, 'the ledger answers within its own timeout');
  t.same(fromLedger.json(), { upstream: 'ledger', path: '/v1/ledger/7' });
  t.equal(fromReports.statusCode, 504, 'the reports upstream is past its own, shorter one');
  t.equal(fromReports.json().error, 'upstream_timeout');
  t.equal(fromPublic.statusCode, 200);
  t.match(fromPublic.json(), { upstream: 'public', url: '/v1/sales/9' }, 'the shipped routes still reach theirs');
  t.same(ledger.paths, ['/v1/ledger/7']);
  t.same(reports.paths, ['/v1/reports/8'], 'the request did reach the slow upstream');
  t.same(tg.upstreams.banking.received, [], 'nothing else reached banking');
});

t.test("each upstream's connection limit holds for it alone", async (t) => {
  const narrow = await countingUpstream(t, 'narrow', 60);
  const wide = await countingUpstream(t, 'wide', 60);
  const dir = policyDirWith(t, { 'narrow.yaml': bearerPolicy('narrow'), 'wide.yaml': bearerPolicy('wide') });
  const tg = await startTestGateway(t, {
    store: 'embedded',
    config: { policies_dir: dir, upstream_connections: 4, upstreams: { narrow: { url: narrow.url, connections: 1 }, wide: wide.url } },
  });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  const get = (url: string) => tg.gateway.publicApp.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  const responses = await Promise.all([1, 2, 3, 4].flatMap((i) => [get(`/v1/narrow/${i}`), get(`/v1/wide/${i}`)]));
  t.same(
    responses.map((r) => r.statusCode),
    Array(8).fill(200),
  );
  t.equal(narrow.paths.length, 4);
  t.equal(wide.paths.length, 4);
  t.equal(narrow.maxInFlight, 1, 'connections: 1 sends one request at a time');
  t.equal(wide.maxInFlight, 4, 'the default of 4 lets the other upstream take all four at once');
});
