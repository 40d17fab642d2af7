// The HTTP decision listener (GATEWAY_DECISION_PORT) for edge proxies: a node:http server with the
// timeouts and connection cap of the gateway's other listeners, the catalog's answer to malformed
// HTTP, and decision-exchange.ts answering each request. It stops as they do
// (gateway/process/drain.ts): `server` is what the drain tells to close connections and stop
// accepting; close() lets the requests in flight finish.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import inject, { type InjectOptions, type Response } from 'light-my-request';
import type { DestinationStream } from 'pino';
import type { Settings } from '../config/settings.js';
import { refuseMalformedRequest } from '../http/client-errors.js';
import { listenerLogger } from '../http/logging.js';
import { DECISION_LISTENER, decisionHandler, type DecisionDependencies } from './decision-exchange.js';

export interface DecisionListenerDependencies extends Omit<DecisionDependencies, 'settings' | 'log'> {
  settings: Pick<Settings, 'trustedProxies' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'headersTimeoutMs' | 'maxConnections' | 'logLevel' | 'logFormat'>;
  logStream?: DestinationStream | undefined;
}

export class DecisionListener {
  readonly server: Server;
  private readonly handle: (request: IncomingMessage, response: ServerResponse) => void;
  private closing = false;

  constructor(deps: DecisionListenerDependencies) {
    const { settings } = deps;
    const log = listenerLogger(settings.logLevel, settings.logFormat, DECISION_LISTENER, deps.logStream);
    this.handle = decisionHandler({ ...deps, log }, () => this.closing);
    // What an unauthenticated client can hold: a connection, for these times at most. Node checks
    // the timeouts every connectionsCheckingInterval (30 s by default): often enough that a timeout
    // means what it says.
    this.server = createServer(
      {
        requestTimeout: settings.requestTimeoutMs,
        headersTimeout: settings.headersTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, settings.headersTimeoutMs),
      },
      this.handle,
    );
    this.server.keepAliveTimeout = settings.keepAliveTimeoutMs;
    this.server.maxConnections = settings.maxConnections;
    this.server.on('clientError', (error, socket) => refuseMalformedRequest(log, error, socket as Socket));
    deps.metrics.observeConnections(
      DECISION_LISTENER,
      () => new Promise((resolve) => this.server.getConnections((error, count) => resolve(error ? 0 : count))),
    );
  }

  /** Listens on host:port (0: any free port); resolves with the address bound, as Fastify's listen does. */
  listen(options: { host: string; port: number }): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: options.host, port: options.port }, () => {
        this.server.off('error', reject);
        const { address, port } = this.server.address() as AddressInfo;
        resolve(`http://${address.includes(':') ? `[${address}]` : address}:${port}`);
      });
    });
  }

  /**
   * Stops accepting (if the drain has not already), closes idle connections, and resolves once every
   * connection has ended after its answer: the server's 'close', which comes once none is left.
   */
  close(): Promise<void> {
    this.closing = true;
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Answers one request without a socket (tests). */
  inject(options: InjectOptions): Promise<Response> {
    return inject(this.handle, options);
  }
}
