// Refusing a request whose body is still arriving, on real sockets: the client that sends its
// whole body before it reads (as Python's requests does) still reads its answer, because the rest
// is read and discarded while the connection lingers; and a flood of such uploads is read only at
// the discard pace, whatever Node's HTTP server would otherwise resume on its own.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { DiscardPacer } from '../../gateway/http/discard-pacer.js';
import { closeAfterResponse } from '../../gateway/http/lingering-close.js';
import { startTestGateway } from '../helpers/gateway.js';
import { listen, parseResponse, requestHead } from '../helpers/http.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** Writes head and body, reading nothing until the kernel took every byte; then reads to the end. */
function sendAllThenRead(port: number, head: string, body: Buffer, timeoutMs = 10_000): Promise<{ text: string; sentAll: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let sentAll = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms (sent all: ${sentAll})`));
    }, timeoutMs);
    socket.pause();
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), sentAll });
    });
    socket.write(head);
    socket.write(body, () => {
      sentAll = true;
      socket.resume();
    });
  });
}

t.test('a client that sends its whole upload before reading still reads its 401', async (t) => {
  const tg = await startTestGateway(t);
  const { publicPort } = await listen(tg);
  const body = Buffer.alloc(6 * MIB, 'a');
  const head = requestHead('POST', '/v1/webhooks', { host: 'api.test', 'content-type': 'application/octet-stream', 'content-length': String(body.length) });
  const { text, sentAll } = await sendAllThenRead(publicPort, head, body);
  t.equal(sentAll, true, 'every byte of the refused upload was taken off the wire');
  const response = parseResponse(text);
  t.equal(response.status, 401, text.slice(0, 200));
  t.equal(response.headers.connection, 'close');
  t.equal(JSON.parse(response.body).error, 'invalid_token');
  t.equal(tg.upstreams.public.received.length, 0, 'nothing was forwarded');
});

t.test('a flood of refused uploads is read at the discard pace, not as fast as it arrives', async (t) => {
  const RATE = 256 * KIB;
  const BURST = 64 * KIB;
  const CLIENTS = 8;
  const pacer = new DiscardPacer(RATE, BURST);
  const serverSockets: Socket[] = [];
  let answered = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    closeAfterResponse(request, pacer);
    response.writeHead(401, { 'content-type': 'application/json', connection: 'close' }).end('{"error":"invalid_token"}');
    answered++;
  });
  server.on('connection', (socket: Socket) => serverSockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const clients: Socket[] = [];
  t.teardown(() => {
    for (const client of clients) client.destroy();
    server.closeAllConnections();
    server.close();
  });

  const body = Buffer.alloc(MIB, 'a');
  const head = requestHead('POST', '/upload', { host: 'x.test', 'content-length': String(body.length) });
  for (let i = 0; i < CLIENTS; i++) {
    const client = connect(port, '127.0.0.1');
    clients.push(client);
    client.on('error', () => {});
    client.resume();
    client.write(head);
    client.write(body);
  }
  const waitFor = async (done: () => boolean) => {
    const deadline = Date.now() + 5000;
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  await waitFor(() => answered === CLIENTS);
  t.equal(answered, CLIENTS, 'every upload was refused from its headers');
  const refusedAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 600));
  const read = serverSockets.reduce((sum, socket) => sum + socket.bytesRead, 0);
  const elapsedSeconds = (performance.now() - refusedAt) / 1000;
  // Before its refusal a request reads what comes with its head (a 64 KiB read or two, up to the
  // request's buffer); after it, the pace, plus one read per connection it lets go on.
  const bound = CLIENTS * 192 * KIB + BURST + RATE * elapsedSeconds + CLIENTS * 64 * KIB;
  t.ok(
    read < bound,
    `read ${(read / KIB).toFixed(0)} KiB of ${((CLIENTS * body.length) / KIB).toFixed(0)} KiB sent in ${elapsedSeconds.toFixed(2)} s (bound ${(bound / KIB).toFixed(0)} KiB)`,
  );
  // The rest of each body is never read: its connection is closed when its linger (2 s) ends.
  await waitFor(() => serverSockets.every((socket) => socket.destroyed));
  t.ok(
    serverSockets.every((socket) => socket.destroyed),
    'every connection was closed at the end of its linger',
  );
});

t.test('many refused uploads waiting at once are let go one read at a time, not one read each', async (t) => {
  const RATE = 512 * KIB;
  const BURST = 64 * KIB;
  const READ = 64 * KIB;
  const CLIENTS = 32;
  const pacer = new DiscardPacer(RATE, BURST);
  const serverSockets: Socket[] = [];
  let answered = 0;
  let firstRefusalAt: number | undefined;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    firstRefusalAt ??= performance.now();
    closeAfterResponse(request, pacer);
    response.writeHead(401, { 'content-type': 'application/json', connection: 'close' }).end('{"error":"invalid_token"}');
    answered++;
  });
  server.on('connection', (socket: Socket) => serverSockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const clients: Socket[] = [];
  t.teardown(() => {
    for (const client of clients) client.destroy();
    server.closeAllConnections();
    server.close();
  });

  // Each client sends its head alone and the body only once it has its answer: nothing of the body
  // is read before the refusal, so every byte read is the pace's.
  const body = Buffer.alloc(MIB, 'a');
  const head = requestHead('POST', '/upload', { host: 'x.test', 'content-length': String(body.length) });
  for (let i = 0; i < CLIENTS; i++) {
    // Half-open: the gateway's FIN after its answer must not end the client's side before the body.
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    clients.push(client);
    client.on('error', () => {});
    client.once('data', () => client.write(body));
    client.resume();
    client.write(head);
  }
  const deadline = Date.now() + 5000;
  while (answered < CLIENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(answered, CLIENTS, 'every upload was refused from its head');
  await new Promise((resolve) => setTimeout(resolve, 600));
  const read = serverSockets.reduce((sum, socket) => sum + socket.bytesRead, 0) - CLIENTS * Buffer.byteLength(head);
  const elapsedSeconds = (performance.now() - firstRefusalAt!) / 1000;
  const bound = BURST + RATE * elapsedSeconds + READ;
  t.ok(
    read <= bound,
    `read ${(read / KIB).toFixed(0)} KiB of bodies in ${elapsedSeconds.toFixed(2)} s from ${CLIENTS} connections (bound ${(bound / KIB).toFixed(0)} KiB: no read per connection beyond the pace)`,
  );
});
