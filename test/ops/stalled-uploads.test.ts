// The stalled-upload attack, on a real gateway process: hundreds of connections that each declare a
// large body, send all but the last byte and stall. Without a credential nothing is buffered and
// the connection is closed at once; a stall the gateway must wait on (a token form, an
// authenticated upload) is cut by the request timeout; authenticated bodies are held only within
// the body budget. The process's resident memory stays flat and every connection is closed.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startEchoUpstream } from '../../gateway/examples/echo-upstream.js';
import { signRequest, sshPublicKeyLine } from '../../gateway/signing/index.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { partialRequest, requestHead } from '../helpers/http.js';
import { residentBytes } from '../helpers/process-ops.js';

const MIB = 1024 * 1024;
const PER_KIND = 100;
const REQUEST_TIMEOUT_MS = 3000;

t.test('hundreds of stalled uploads: memory stays flat, every connection is closed', async (t) => {
  const banking = await startEchoUpstream('banking');
  const publicApi = await startEchoUpstream('public');
  t.teardown(async () => {
    await banking.close();
    await publicApi.close();
  });
  const adminToken = randomBytes(24).toString('hex');
  const gateway = await startGatewayProcess(t, {
    GATEWAY_ADMIN_TOKEN: adminToken,
    GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-stall-')),
    PUBLIC_UPSTREAM: publicApi.url,
    BANKING_UPSTREAM: banking.url,
    GATEWAY_LOG_LEVEL: 'warn',
    GATEWAY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    GATEWAY_HEADERS_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    GATEWAY_BODY_BUFFER_BUDGET_BYTES: String(8 * MIB),
  });
  const pid = gateway.child.pid!;

  const { privateKey } = generateKeyPairSync('ed25519');
  const created = await fetch(`${gateway.adminUrl}/admin/v1/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'stalled uploads', public_key: sshPublicKeyLine(privateKey), permissions: ['initiate_payment'] }),
  });
  t.equal(created.status, 201);
  const accessId = ((await created.json()) as { access_id: string }).access_id;

  // Warm up, so that the baseline includes what the first requests allocate once.
  for (let i = 0; i < 20; i++) await fetch(`${gateway.publicUrl}/v1/balance`);
  const baseline = residentBytes(pid);

  const body = Buffer.alloc(MIB, 'a');
  const allButOne = body.subarray(0, MIB - 1);
  const url = `http://127.0.0.1:${gateway.port}/v1/transfers`;
  const signedHead = (id: string) => {
    const headers = signRequest({ method: 'POST', url, body, headers: { 'content-type': 'application/octet-stream' }, accessId: id, privateKey });
    return requestHead('POST', '/v1/transfers', {
      host: `127.0.0.1:${gateway.port}`,
      'content-type': 'application/octet-stream',
      'content-length': String(MIB),
      ...headers,
    });
  };
  const form = `client_id=${randomUUID()}&client_secret=${'s'.repeat(7000)}`;
  const formHead = requestHead('POST', '/v1/oauth/token', {
    host: '127.0.0.1',
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(form.length),
  });

  const bearerHead = requestHead('POST', '/v1/webhooks', { host: '127.0.0.1', 'content-type': 'application/octet-stream', 'content-length': String(MIB) });
  const started = Date.now();
  const exchanges = [
    // No credential: an Access ID nobody holds, with a well-formed signature.
    ...Array.from({ length: PER_KIND }, () => ({
      kind: 'unknown Access ID',
      exchange: partialRequest(gateway.port, signedHead(randomUUID()), allButOne, 15_000),
    })),
    // No credential: a Bearer route without a token (its body would be streamed, never buffered).
    ...Array.from({ length: PER_KIND }, () => ({ kind: 'no bearer token', exchange: partialRequest(gateway.port, bearerHead, allButOne, 15_000) })),
    // No credential: a token form the gateway has to wait for.
    ...Array.from({ length: PER_KIND }, () => ({ kind: 'token form', exchange: partialRequest(gateway.port, formHead, form.slice(0, -1), 15_000) })),
    // A real credential, each with its own nonce: held only within the budget, then cut by the timeout.
    ...Array.from({ length: PER_KIND }, () => ({ kind: 'authenticated', exchange: partialRequest(gateway.port, signedHead(accessId), allButOne, 15_000) })),
  ];

  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid));
  }, 50);
  const results = await Promise.all(exchanges.map(async ({ kind, exchange }) => ({ kind, response: await exchange.response })));
  clearInterval(sampler);
  peak = Math.max(peak, residentBytes(pid));
  const closedWithinMs = Date.now() - started;

  const statuses = (kind: string) => {
    const counts: Record<number, number> = {};
    for (const r of results.filter((r) => r.kind === kind)) counts[r.response.status] = (counts[r.response.status] ?? 0) + 1;
    return counts;
  };
  t.same(statuses('unknown Access ID'), { 401: PER_KIND }, 'no credential: refused from the headers');
  t.same(statuses('no bearer token'), { 401: PER_KIND }, 'no token: refused from the headers');
  t.same(statuses('token form'), { 408: PER_KIND }, 'a stalled token form: cut by the request timeout');
  const authenticated = statuses('authenticated');
  t.equal(
    (authenticated[408] ?? 0) + (authenticated[503] ?? 0),
    PER_KIND,
    `authenticated stalls: 408 within the budget, 503 past it (${JSON.stringify(authenticated)})`,
  );
  t.ok((authenticated[408] ?? 0) <= 8, 'at most budget / body size uploads were held at once');
  // The timeout, Node's 1 s check interval, and room for 400 connections' writes on a machine busy
  // with the rest of the suite (a full run measured 8.1 s); never the client's own 15 s limit.
  t.ok(
    results.every((r) => r.response.closedAfterMs < REQUEST_TIMEOUT_MS + 7000),
    'every connection was closed by the gateway within the timeout and its check interval',
  );
  t.equal(banking.received.filter((r) => r.method === 'POST').length + publicApi.received.length, 0, 'nothing was forwarded');

  const growth = peak - baseline;
  t.comment(
    `RSS baseline ${(baseline / MIB).toFixed(1)} MiB, peak ${(peak / MIB).toFixed(1)} MiB (+${(growth / MIB).toFixed(1)} MiB) over ${exchanges.length} stalled uploads of ~1 MiB; all closed within ${closedWithinMs} ms`,
  );
  // Holding the bodies would grow the process by about 1 MiB per upload (295 to 914 MB for 800
  // were measured before the budget). What remains is the 8 MiB budget and the garbage of bytes
  // read and discarded while refused connections close, which depends on when the collector runs
  // on a busy machine.
  t.ok(
    growth < 100 * MIB,
    `resident memory stayed flat: +${(growth / MIB).toFixed(1)} MiB for ${exchanges.length} stalled uploads declaring ${PER_KIND * 3} MiB`,
  );

  const health = await fetch(`${gateway.adminUrl}/healthz`);
  t.equal(health.status, 200, 'the gateway is still serving');
});
