// A rolling restart loses nothing: two gateway processes sharing one Redis behind a real nginx
// (plain upstream block, keep-alive to the gateways), concurrent keep-alive clients sending
// idempotent requests, and each gateway stopped with SIGTERM and started again in turn. Not one
// request may fail: no 5xx, no connection error.
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { freePort, startGatewayProcess, type GatewayProcess, type GatewayProcessOptions } from '../helpers/gateway-process.js';
import { startNginx } from '../helpers/nginx.js';
import { bearerToken, exitOf, get, sharedRedisDeployment } from '../helpers/process-ops.js';

/** Concurrent clients, each on its own keep-alive connection to nginx. */
const CLIENTS = 4;

/** Requests this gateway forwarded so far (its own metrics). */
async function forwarded(gw: GatewayProcess): Promise<number> {
  const text = await (await fetch(`${gw.adminUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('gateway_requests_total{') && line.includes('outcome="forwarded"'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Waits until nginx has sent this gateway a request (polling its metrics a few times a second). */
async function untilServing(gw: GatewayProcess, what: string, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; (await forwarded(gw)) === 0; await sleep(250)) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
  }
}

t.test('restarting each of two gateways behind nginx in turn fails no request', async (t) => {
  const deployment = await sharedRedisDeployment(t, 'rolling');
  const { adminToken } = deployment;
  const env = {
    ...deployment.env,
    // One issuer for the whole deployment: a token from either gateway is valid on both.
    GATEWAY_ISSUER: 'http://gateway.test',
    GATEWAY_SHUTDOWN_DRAIN_SECONDS: '3',
    GATEWAY_LOG_LEVEL: 'warn',
  };
  const ports: GatewayProcessOptions[] = [];
  for (let i = 0; i < 2; i++) ports.push({ port: await freePort(), adminPort: await freePort() });
  const gateways = await Promise.all(ports.map((p) => startGatewayProcess(t, env, p)));
  const nginx = await startNginx(
    t,
    ports.map((p) => p.port!),
  );
  const auth = { authorization: `Bearer ${await bearerToken(gateways[0]!, adminToken, ['sales'])}` };

  // The load: keep-alive clients in a loop until told to stop.
  let running = true;
  let served = 0;
  const failures: string[] = [];
  const client = async (n: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; running; i++) {
      try {
        const response = await get(`${nginx.url}/v1/sales/${n}-${i}`, auth, agent);
        if (response.status === 200) served++;
        else failures.push(`${response.status} ${response.body}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
      // The upstream keeps what it received for other tests' assertions; this one would only pile up.
      if (deployment.publicApi.received.length > 1000) deployment.publicApi.received.splice(0);
      // Paced: the machine is shared, and a few hundred requests a second keep every connection busy.
      await sleep(5);
    }
    agent.destroy();
  };
  const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  const stopLoad = async () => {
    running = false;
    await load;
  };
  t.teardown(stopLoad);

  for (const gw of gateways) await untilServing(gw, 'nginx sends requests to both gateways', 20_000);

  for (const [i, gw] of gateways.entries()) {
    const before = served;
    const exit = exitOf(gw);
    gw.child.kill('SIGTERM');
    t.same(await exit, { code: 0, signal: null }, `gateway ${i + 1} drained and exited 0`);
    const restarted = await startGatewayProcess(t, env, ports[i]);
    gateways[i] = restarted;
    // nginx takes a gateway back once it has answered again (after nginx's fail_timeout): only then
    // may the other one stop.
    await untilServing(restarted, `nginx sends requests to the restarted gateway ${i + 1}`, 30_000);
    t.ok(served > before, `requests kept being served while gateway ${i + 1} restarted (${served - before})`);
  }
  await sleep(500);
  await stopLoad();

  // What nginx met and retried on the other gateway (e.g. "connect() failed (111: Connection refused)").
  const retried = new Map<string, number>();
  for (const [, what] of nginx.errorLog().matchAll(/\*\d+ (.+?) while /g)) retried.set(what!, (retried.get(what!) ?? 0) + 1);
  t.comment(`rolling restart: ${served} requests served, ${failures.length} failed; nginx retried: ${JSON.stringify(Object.fromEntries(retried))}`);
  t.ok(served > 100, `requests were served throughout (${served})`);
  t.same(failures, [], 'no request failed');
});
