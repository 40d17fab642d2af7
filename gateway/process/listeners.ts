// Where the listeners bind, and what a person is told when one cannot: one line naming the setting
// (GATEWAY_PORT, GATEWAY_ADMIN_PORT, GATEWAY_DECISION_PORT, GATEWAY_DECISION_GRPC_PORT or the host
// beside it) and the address,
// instead of a stack trace. Every address is tried before any listener starts, so that a port in use
// stops the start before a listener has said that it listens.
import { createServer } from 'node:net';
import type { Settings } from '../config/settings.js';
import type { GrpcDecisionListener } from '../decision/grpc/grpc-decision-listener.js';

export interface ListenerAddress {
  readonly listener: 'public' | 'admin' | 'decision' | 'decision-grpc';
  readonly host: string;
  readonly port: number;
  readonly hostVariable: string;
  readonly portVariable: string;
}

/** A listener that cannot bind; the message is one line a person can act on. */
export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

/** The addresses of the listeners the settings open, the admin listener first (it binds first). */
export function listenerAddresses(
  settings: Pick<Settings, 'host' | 'port' | 'adminHost' | 'adminPort' | 'decisionHost' | 'decisionPort' | 'decisionGrpcPort'>,
): ListenerAddress[] {
  return [
    { listener: 'admin', host: settings.adminHost, port: settings.adminPort, hostVariable: 'GATEWAY_ADMIN_HOST', portVariable: 'GATEWAY_ADMIN_PORT' },
    { listener: 'public', host: settings.host, port: settings.port, hostVariable: 'GATEWAY_HOST', portVariable: 'GATEWAY_PORT' },
    ...(settings.decisionPort === null
      ? []
      : [
          {
            listener: 'decision' as const,
            host: settings.decisionHost,
            port: settings.decisionPort,
            hostVariable: 'GATEWAY_DECISION_HOST',
            portVariable: 'GATEWAY_DECISION_PORT',
          },
        ]),
    ...(settings.decisionGrpcPort === null
      ? []
      : [
          {
            listener: 'decision-grpc' as const,
            host: settings.decisionHost,
            port: settings.decisionGrpcPort,
            hostVariable: 'GATEWAY_DECISION_HOST',
            portVariable: 'GATEWAY_DECISION_GRPC_PORT',
          },
        ]),
  ];
}

const shown = (address: ListenerAddress) => `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;

/** Why the address cannot be listened on, as one line naming the setting to change. */
export function listenProblem(address: ListenerAddress, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const at = `${shown(address)} (the ${address.listener} listener)`;
  switch (code) {
    case 'EADDRINUSE':
      return `${address.portVariable}: ${at} is already in use (EADDRINUSE): stop what listens there, or set ${address.portVariable} to a free port`;
    case 'EACCES':
      return `${address.portVariable}: ${at} needs privileges to bind (EACCES): set ${address.portVariable} to a port above 1023`;
    case 'EADDRNOTAVAIL':
      return `${address.hostVariable}: ${at}: ${address.host} is not an address of this machine (EADDRNOTAVAIL)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${address.hostVariable}: ${at}: ${address.host} does not resolve (${code})`;
    default:
      return `${address.portVariable}: cannot listen on ${at}: ${(error as Error).message}`;
  }
}

/** Binds the address and lets it go again: resolves with why it cannot be bound, or undefined. */
function tryBind(address: ListenerAddress): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(listenProblem(address, error)));
    server.listen({ host: address.host, port: address.port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Refuses the start (ListenError, a line per address) unless every address can be bound now. Run
 * in the process that owns the ports (the primary, with workers) before any listener starts; a
 * port of 0 is any free port and needs no check.
 */
export async function checkAddressesFree(addresses: readonly ListenerAddress[]): Promise<void> {
  const problems = (await Promise.all(addresses.filter((a) => a.port !== 0).map(tryBind))).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new ListenError(problems.join('\n'));
}

/** Listens; a bind failure (another process took the port since the check) becomes a ListenError. */
export async function listenAt(app: { listen(options: { host: string; port: number }): Promise<unknown> }, address: ListenerAddress): Promise<void> {
  try {
    await app.listen({ host: address.host, port: address.port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    throw new ListenError(listenProblem(address, error));
  }
}

/** listenAt for the gRPC decision listener: a bind failure becomes a ListenError; resolves with the port bound. */
export async function listenGrpcAt(listener: Pick<GrpcDecisionListener, 'listen'>, address: ListenerAddress): Promise<number> {
  try {
    return await listener.listen(address.host, address.port);
  } catch (error) {
    // grpc-js reports a failed bind as one message, the errno inside it ("... [listen EADDRINUSE: ...]").
    const message = (error as Error).message;
    throw new ListenError(listenProblem(address, Object.assign(new Error(message), { code: /\bE[A-Z]+\b/.exec(message)?.[0] })));
  }
}
