// An HTTP server of a test's own on 127.0.0.1 (a port the system picks), closed with its open
// connections when the test ends: a stand-in upstream or a redirect target.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

/** Serves `handler` until the test ends; resolves with its origin, http://127.0.0.1:<port>. */
export async function serveOnLoopback(t: Test, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        // A held request (a slow upstream's) would keep close() waiting.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
