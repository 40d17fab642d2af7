// Stopping without failing a request. Refusing work on an open keep-alive connection (Fastify's 503
// on close) fails whatever a client or proxy already sent on it; instead the gateway
//  1. drains: /readyz answers 503 and every response carries Connection: close, so each connection
//     ends after its current response and clients and proxies reconnect elsewhere, while requests
//     still reaching this process (on old connections or new ones) are answered;
//  2. stops accepting, and for a moment more still answers requests on open connections;
//  3. closes idle connections, lets in-flight requests finish (bounded), and closes the store.
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Gateway } from '../app.js';
import type { Settings } from '../config/settings.js';

export interface DrainTiming {
  /** How long to keep serving before the listeners stop accepting. */
  readonly drainMs: number;
  /** Longest wait for in-flight requests once the listeners stopped accepting. */
  readonly finishMs: number;
}

/** How long open connections are still read once the listeners stopped accepting. */
const SETTLE_MS = 1000;

/** GATEWAY_SHUTDOWN_DRAIN_SECONDS, then as long as a request may legitimately take (receiving it, or its slowest upstream). */
export function drainTiming(settings: Pick<Settings, 'shutdownDrainSeconds' | 'requestTimeoutMs' | 'upstreamTimeoutMs' | 'upstreams'>): DrainTiming {
  const upstreamMs = Math.max(settings.upstreamTimeoutMs, ...Object.values(settings.upstreams).map((u) => u.timeoutMs));
  return { drainMs: settings.shutdownDrainSeconds * 1000, finishMs: Math.max(settings.requestTimeoutMs, upstreamMs) };
}

/** From now on, every response asks the client to close its connection afterwards. */
function closeConnectionsAfterResponse(server: Server): void {
  // Before the listener's own: the header must be set before anything is written.
  server.prependListener('request', (_request, response) => response.setHeader('connection', 'close'));
}

/**
 * Closes the listening socket only. http.Server.close() would also destroy every connection without
 * a request in progress, including one whose next request is already in its socket buffer, unread:
 * that request would fail. The settle time lets such requests be read and answered first (and a
 * proxy that now finds the port closed stops choosing this server). What the kernel had accepted but
 * Node not yet is reset by the close itself (TCP's race): proxies retry it elsewhere.
 */
function stopAccepting(server: Server): void {
  if (server.listening) NetServer.prototype.close.call(server);
}

/** Drains, then closes the gateway. Resolves false if in-flight requests had to be cut off. */
export async function drainAndClose(gateway: Gateway, timing: DrainTiming): Promise<boolean> {
  gateway.lifecycle.startDraining();
  // The gRPC decision listener: NOT_SERVING, and its connections asked to go (GOAWAY) once answered.
  gateway.decisionGrpc?.startDraining();
  // The decision listener too: edge proxies keep connections to it and must reconnect elsewhere.
  const servers = [gateway.publicApp.server, gateway.adminApp.server, ...(gateway.decisionListener ? [gateway.decisionListener.server] : [])];
  for (const server of servers) closeConnectionsAfterResponse(server);
  await sleep(timing.drainMs);
  for (const server of servers) stopAccepting(server);
  gateway.decisionGrpc?.stopAccepting();
  // No drain asked for (0 s): no settle either.
  await sleep(Math.min(SETTLE_MS, timing.drainMs));

  let finished = true;
  const cutOff = setTimeout(() => {
    finished = false;
    for (const server of servers) server.closeAllConnections();
    gateway.decisionGrpc?.forceClose();
  }, timing.finishMs);
  try {
    // Closes idle connections, waits for the others to end after their response, closes the store.
    await gateway.close();
  } finally {
    clearTimeout(cutOff);
  }
  return finished;
}
