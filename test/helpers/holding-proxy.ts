// A TCP proxy in front of a Redis that can hold what clients send (answers still flow back): from
// the first chunk a predicate picks, every byte sent to the server waits in the proxy until
// release() writes it, in order. A write the client already gave up on (a command timeout, 503)
// then reaches Redis late, as at the end of a partition.
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface HoldingProxy {
  port: number;
  /** From the first client chunk for which `starts` is true (or at once without it), hold every client chunk. */
  holdFrom(starts?: (chunk: Buffer) => boolean): void;
  /** True once holding began. */
  readonly holding: boolean;
  /** Sends what was held, in order, and stops holding. */
  release(): void;
}

interface Link {
  upstream: Socket;
  held: Buffer[];
}

export async function startHoldingProxy(t: Test, targetPort: number, targetHost = '127.0.0.1'): Promise<HoldingProxy> {
  const links = new Set<Link>();
  let trigger: ((chunk: Buffer) => boolean) | undefined;
  let holding = false;
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const link: Link = { upstream, held: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (!holding && trigger?.(chunk)) holding = true;
      if (holding) link.held.push(chunk);
      else upstream.write(chunk);
    });
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      links.delete(link);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const link of links) link.upstream.destroy();
    await closed;
  });
  return {
    port: (server.address() as AddressInfo).port,
    holdFrom(starts) {
      if (starts) trigger = starts;
      else holding = true;
    },
    get holding() {
      return holding;
    },
    release() {
      holding = false;
      trigger = undefined;
      for (const link of links) for (const chunk of link.held.splice(0)) link.upstream.write(chunk);
    },
  };
}
