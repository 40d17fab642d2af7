// A small example upstream that answers every request with what reached it: method, path, query,
// headers and body. Used by the README walkthrough and by tests; never in production.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoUpstream {
  readonly url: string;
  /** Every request received, newest last (tests assert the upstream was or was not contacted). */
  readonly received: EchoedRequest[];
  close(): Promise<void>;
}

export interface EchoedRequest {
  upstream: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function startEchoUpstream(name: string, host = '127.0.0.1', port = 0): Promise<EchoUpstream> {
  const received: EchoedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const echoed: EchoedRequest = { upstream: name, method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(echoed);
      response.writeHead(200, { 'content-type': 'application/json' });
      // A trailing newline, so a shell prompt after curl's output starts on a line of its own.
      response.end(`${JSON.stringify(echoed)}\n`);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
