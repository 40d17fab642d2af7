// A client that goes away frees everything the gateway holds for it: a request whose client left
// while it was being checked is not forwarded, and one whose client leaves mid-response stops the
// upstream exchange. Either would otherwise keep an upstream connection paused for good, and the
// gateway could not stop.
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { listen, requestHead } from '../helpers/http.js';
import { accessToken, createClient } from '../helpers/oauth.js';
import { until } from '../helpers/poll.js';

/** Rejects if the promise has not settled within ms. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

t.test('a client that leaves while its request is checked: nothing is forwarded, the gateway still stops', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort: port } = await listen(tg);
  const client = await createClient(tg, ['sales']);
  const token = await accessToken(tg, client);
  // The check takes a while (a slow store), and the client does not wait for it.
  const store = tg.gateway.store;
  const bearerState = store.bearerState.bind(store);
  let checked = 0;
  store.bearerState = async (...args) => {
    await sleep(300);
    checked++;
    return bearerState(...args);
  };
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(requestHead('GET', '/v1/sales/1', { host: '127.0.0.1', authorization: `Bearer ${token}` }));
  await sleep(50);
  socket.destroy();
  await until(() => checked === 1, 'the check finished', 5000);
  await sleep(200);
  t.equal(tg.upstreams.public.received.length, 0, 'the upstream was not contacted for a client that had left');
  await within(5000, 'the gateway closed', tg.gateway.close());
  t.pass('the gateway closed at once');
});

t.test('a client that leaves mid-response: the upstream exchange is stopped', async (t) => {
  // An upstream that sends its headers and a first chunk, then waits.
  let upstreamRequest: IncomingMessage | undefined;
  let upstreamClosed = false;
  const upstream = createServer((request, response) => {
    upstreamRequest = request;
    response.on('close', () => (upstreamClosed = true));
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('first part\n');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        upstream.close(() => resolve());
        upstream.closeAllConnections();
      }),
  );
  const tg = await startTestGateway(t, {
    config: { public_upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, upstream_timeout_ms: 60_000 },
  });
  const { publicPort: port } = await listen(tg);
  const token = await accessToken(tg, await createClient(tg, ['sales']));

  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.write(requestHead('GET', '/v1/sales/1', { host: '127.0.0.1', authorization: `Bearer ${token}` }));
  await until(() => received.includes('first part'), 'the first chunk reached the client', 5000);
  t.match(received, /^HTTP\/1\.1 200 /, 'the upstream status was relayed');
  t.ok(upstreamRequest, 'the upstream was contacted');
  socket.destroy();
  await until(() => upstreamClosed, 'the upstream exchange was stopped', 5000);
  t.ok(upstreamClosed, 'the gateway closed its upstream exchange when the client left');
  await within(5000, 'the gateway closed', tg.gateway.close());
  t.pass('the gateway closed at once');
});
