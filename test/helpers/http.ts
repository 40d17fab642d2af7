// Real-socket helpers: a listening gateway, raw HTTP/1.1 requests over node:net (so that no client
// library normalises the request target), and upstream servers that misbehave on purpose.
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import type { TestGateway } from './gateway.js';

export interface Listening {
  publicUrl: string;
  publicPort: number;
  adminUrl: string;
  adminPort: number;
  /** When the gateway has a decision listener (decisionPort in its settings). */
  decisionUrl?: string;
  decisionPort?: number;
}

/** Makes the listeners of a test gateway listen on 127.0.0.1 with free ports. */
export async function listen(tg: TestGateway): Promise<Listening> {
  await tg.gateway.publicApp.listen({ host: '127.0.0.1', port: 0 });
  await tg.gateway.adminApp.listen({ host: '127.0.0.1', port: 0 });
  const publicPort = (tg.gateway.publicApp.server.address() as AddressInfo).port;
  const adminPort = (tg.gateway.adminApp.server.address() as AddressInfo).port;
  const listening: Listening = { publicUrl: `http://127.0.0.1:${publicPort}`, publicPort, adminUrl: `http://127.0.0.1:${adminPort}`, adminPort };
  const decisionListener = tg.gateway.decisionListener;
  if (decisionListener) {
    await decisionListener.listen({ host: '127.0.0.1', port: 0 });
    listening.decisionPort = (decisionListener.server.address() as AddressInfo).port;
    listening.decisionUrl = `http://127.0.0.1:${listening.decisionPort}`;
  }
  return listening;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request exactly as written (target and headers untouched) and reads the response. */
export function rawRequest(port: number, method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<RawResponse> {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  const text = `${lines.join('\r\n')}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(text);
  });
}

export function parseResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  if (split === -1) throw new Error(`no complete HTTP response: ${JSON.stringify(text)}`);
  const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status, headers, body };
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** An HTTP server that accepts requests and never answers them (for upstream timeouts). */
export async function startSilentUpstream(t: Test): Promise<{ url: string; received: number }> {
  const state = { url: '', received: 0 };
  const server: Server = createHttpServer(() => {
    state.received++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return state;
}

/**
 * A TCP forwarder to a real service (Redis) that a test can cut: after cut(), existing connections
 * are destroyed and new ones are refused, as when the service goes down. pause() does the same
 * until resume(), as when the service comes back.
 */
export async function startTcpForwarder(
  t: Test,
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<{ port: number; cut(): Promise<void>; pause(): void; resume(): void }> {
  const sockets = new Set<Socket>();
  let paused = false;
  const server = createTcpServer((client) => {
    if (paused) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let cut = false;
  const cutNow = async () => {
    if (cut) return;
    cut = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  t.teardown(cutNow);
  const pause = () => {
    paused = true;
    for (const socket of sockets) socket.destroy();
  };
  const resume = () => {
    paused = false;
  };
  return { port: (server.address() as AddressInfo).port, cut: cutNow, pause, resume };
}

export interface PartialExchange {
  /** The response, once the server has answered and closed the connection. */
  response: Promise<RawResponse & { closedAfterMs: number }>;
  /** Writes more bytes on the open connection (ignored once the server has closed it). */
  write(bytes: string | Buffer): void;
  destroy(): void;
}

/**
 * Opens a connection, sends a request head and part of a body, and leaves it open: for refusals
 * that must come before the body, timeouts and budgets. The response resolves when the server
 * closes the connection, and rejects after timeoutMs.
 */
export function partialRequest(port: number, head: string, firstBytes: string | Buffer = '', timeoutMs = 10_000): PartialExchange {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  const chunks: Buffer[] = [];
  const response = new Promise<RawResponse & { closedAfterMs: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not answer and close within ${timeoutMs} ms: ${JSON.stringify(Buffer.concat(chunks).toString())}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // As an HTTP client does: once the answer is complete, stop sending and close our side.
      if (responseComplete(Buffer.concat(chunks).toString('utf8'))) socket.end();
    });
    // Writes after the server refused may fail (EPIPE/ECONNRESET); what was answered is what counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve({ ...parseResponse(Buffer.concat(chunks).toString('utf8')), closedAfterMs: Date.now() - started });
      } catch (error) {
        reject(error);
      }
    });
  });
  socket.write(head);
  if (firstBytes.length > 0) socket.write(firstBytes);
  return {
    response,
    write: (bytes) => {
      if (!socket.destroyed && socket.writable) socket.write(bytes);
    },
    destroy: () => socket.destroy(),
  };
}

function responseComplete(text: string): boolean {
  const split = text.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split));
  return split !== -1 && length !== null && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1]);
}

/** A request head as written on the wire (HTTP/1.1, header names as given). */
export function requestHead(method: string, target: string, headers: Record<string, string | string[]>): string {
  const lines = [`${method} ${target} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
