// The gRPC decision listener (GATEWAY_DECISION_GRPC_PORT): Envoy's external authorization service
// envoy.service.auth.v3.Authorization/Check over plaintext HTTP/2 (h2c), beside the HTTP decision
// conventions and from the same checks, and grpc.health.v1.Health. It stops as the HTTP listeners
// do (gateway/process/drain.ts): while draining it answers every call and reports NOT_SERVING, and
// tells the connections open then to go (GOAWAY: Envoy opens new ones, elsewhere once its health
// check has seen NOT_SERVING); then it stops accepting, tells the connections opened since to go,
// and closes once the calls in flight are answered.
//
// The listening socket is the gateway's own, its connections handed to grpc-js (a connection
// injector), so that it takes the connection cap of the other listeners (GATEWAY_MAX_CONNECTIONS)
// and its open connections can be counted for gateway_open_connections. A connection from outside
// GATEWAY_TRUSTED_PROXIES goes to a server of its own with the same services and small bounds
// (server-options.ts): its calls are refused (decision_caller_not_trusted) and its health asked,
// but it cannot send a body-sized message on each of a thousand streams before that.
import { createServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { Server, ServerCredentials, type ConnectionInjector } from '@grpc/grpc-js';
import type { DestinationStream } from 'pino';
import type { Settings } from '../../config/settings.js';
import { listenerLogger } from '../../http/logging.js';
import { isTrustedProxy, peerAddressOf } from '../../net/client-ip.js';
import { checkCall, GRPC_DECISION_LISTENER, type CheckCallDependencies } from './check-call.js';
import { DecisionHealth } from './decision-health.js';
import { authorizationService } from './proto-definitions.js';
import { decisionServerOptions, strangerServerOptions } from './server-options.js';

export interface GrpcDecisionDependencies extends Omit<CheckCallDependencies, 'settings' | 'log'> {
  settings: Pick<Settings, 'trustedProxies' | 'decisionGrpcDeadlineMs' | 'maxBodyBytes' | 'maxConnections' | 'logLevel' | 'logFormat'>;
  logStream?: DestinationStream | undefined;
}

export class GrpcDecisionListener {
  /** The trusted proxies' connections, and everyone else's. */
  private readonly servers: readonly [Server, Server];
  private readonly connections: readonly [ConnectionInjector, ConnectionInjector];
  private readonly socket: NetServer;
  private readonly health: DecisionHealth;
  private readonly graceMs: number;

  constructor(deps: GrpcDecisionDependencies) {
    const log = listenerLogger(deps.settings.logLevel, deps.settings.logFormat, GRPC_DECISION_LISTENER, deps.logStream);
    const check = checkCall({ ...deps, log });
    this.health = new DecisionHealth(() => deps.notReady() === undefined);
    this.servers = [new Server(decisionServerOptions(deps.settings)), new Server(strangerServerOptions(deps.settings))];
    for (const server of this.servers) {
      server.addService(authorizationService(), { Check: check });
      this.health.addTo(server);
    }
    this.graceMs = deps.settings.decisionGrpcDeadlineMs + 1000;
    this.connections = [
      this.servers[0].createConnectionInjector(ServerCredentials.createInsecure()),
      this.servers[1].createConnectionInjector(ServerCredentials.createInsecure()),
    ];
    const [trusted, strangers] = this.connections;
    this.socket = createServer((connection) =>
      (isTrustedProxy(peerAddressOf(connection), deps.settings.trustedProxies) ? trusted : strangers).injectConnection(connection),
    );
    this.socket.maxConnections = deps.settings.maxConnections;
    deps.metrics.observeConnections(
      GRPC_DECISION_LISTENER,
      () => new Promise((resolve) => this.socket.getConnections((error, count) => resolve(error ? 0 : count))),
    );
  }

  /** Listens on host:port (0: any free port); resolves with the port bound. */
  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.listen({ host, port }, () => {
        this.socket.off('error', reject);
        resolve();
      });
    });
    return (this.socket.address() as AddressInfo).port;
  }

  /** NOT_SERVING from now on; the connections open now are asked to go once their calls are answered. */
  startDraining(): void {
    this.health.startDraining();
    this.goAway();
  }

  /** Closes the listening socket; the connections opened since the drain began are asked to go too. */
  stopAccepting(): void {
    this.goAway();
    if (this.socket.listening) this.socket.close();
  }

  /**
   * Resolves once every connection has closed after its calls were answered; past a call's longest
   * time (a health Watch stream never ends by itself), what is left is cut off.
   */
  close(): Promise<void> {
    this.health.stop();
    if (this.socket.listening) this.socket.close();
    const shutdowns = this.servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          const cutOff = setTimeout(() => server.forceShutdown(), this.graceMs);
          server.tryShutdown(() => {
            clearTimeout(cutOff);
            resolve();
          });
        }),
    );
    return Promise.all(shutdowns).then(() => undefined);
  }

  /** Ends every connection at once, calls in flight with them. */
  forceClose(): void {
    this.health.stop();
    if (this.socket.listening) this.socket.close();
    for (const server of this.servers) server.forceShutdown();
  }

  private goAway(): void {
    // A call outlives its GOAWAY by its deadline at most; past that its connection is reset.
    for (const connections of this.connections) connections.drain(this.graceMs);
  }
}
