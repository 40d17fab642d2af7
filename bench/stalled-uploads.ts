// The stalled-upload memory attack, held open while a figure runs: connections that each
// declare a 1 MiB body, send all of it but the last byte and stall. Four kinds, as in
// test/ops/stalled-uploads.test.ts: a signed upload by an Access ID nobody holds and a Bearer
// upload without a token (refused from the headers), a token form (waited on until the request
// timeout) and a signed upload by a real account (held within the body budget, 503 past it). A
// connection the gateway closes is opened again after a pause, so the attack lasts the whole figure.
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { signRequest } from '../gateway/signing/index.js';
import { createServiceAccount, type Gateway } from './gateway.js';

const MIB = 1024 * 1024;
/** Connections of each kind held at once. */
export const STALLED_PER_KIND = 64;
/** Pause before a closed connection is opened again: bounds the attack's own CPU and the bytes it writes. */
const REOPEN_AFTER_MS = 1000;

export interface StalledUploads {
  /** Connections held at once. */
  readonly held: number;
  /** Connections opened so far. */
  readonly opened: number;
  /** Closes every connection and stops reopening them. */
  stop(): void;
}

function head(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

/**
 * `withAccount`: the fourth kind, a real account's uploads, joins the three that hold no credential
 * (an anonymous attacker's stall).
 */
export async function startStalledUploads(gateway: Gateway, { withAccount }: { withAccount: boolean }): Promise<StalledUploads> {
  const { accessId, privateKey } = await createServiceAccount(gateway, 'bench stalled uploads', ['initiate_payment']);
  const { hostname, port, host } = new URL(gateway.url);
  const body = Buffer.alloc(MIB, 'a');
  const allButOne = body.subarray(0, MIB - 1);
  const transfers = `${gateway.url}/v1/transfers`;
  const signedHead = (id: string) =>
    head('POST', '/v1/transfers', {
      host,
      'content-type': 'application/octet-stream',
      'content-length': String(MIB),
      ...signRequest({ method: 'POST', url: transfers, body, headers: { 'content-type': 'application/octet-stream' }, accessId: id, privateKey }),
    });
  const form = `grant_type=client_credentials&client_id=${randomUUID()}&client_secret=${'s'.repeat(7000)}`;
  const kinds: (() => { head: string; sent: Buffer })[] = [
    () => ({ head: signedHead(randomUUID()), sent: allButOne }),
    () => ({ head: head('POST', '/v1/webhooks', { host, 'content-type': 'application/octet-stream', 'content-length': String(MIB) }), sent: allButOne }),
    () => ({
      head: head('POST', '/v1/oauth/token', { host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.length) }),
      sent: Buffer.from(form.slice(0, -1)),
    }),
    ...(withAccount ? [() => ({ head: signedHead(accessId), sent: allButOne })] : []),
  ];

  let stopped = false;
  let opened = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const open = (kind: () => { head: string; sent: Buffer }) => {
    if (stopped) return;
    opened++;
    const { head: requestHead, sent } = kind();
    const socket = connect(Number(port), hostname);
    sockets.add(socket);
    socket.on('error', () => {});
    socket.resume();
    socket.once('close', () => {
      sockets.delete(socket);
      if (stopped) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        open(kind);
      }, REOPEN_AFTER_MS);
      timers.add(timer);
    });
    socket.write(requestHead);
    socket.write(sent);
  };
  for (const kind of kinds) for (let i = 0; i < STALLED_PER_KIND; i++) open(kind);

  return {
    held: kinds.length * STALLED_PER_KIND,
    get opened() {
      return opened;
    },
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
}
