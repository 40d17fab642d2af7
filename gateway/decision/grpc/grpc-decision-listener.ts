// The gRPC decision listener (GATEWAY_DECISION_GRPC_PORT): Envoy's external authorization service
// envoy.service.auth.v3.Authorization/Check over plaintext HTTP/2 (h2c), beside the HTTP decision
// conventions and from the same checks, and grpc.health.v1.Health. It stops as the HTTP listeners
// do (gateway/process/drain.ts): while draining it answers every call and reports NOT_SERVING, and
// tells the connections open then to go (GOAWAY: Envoy opens new ones, elsewhere once its health
// check has seen NOT_SERVING); then it stops accepting, tells the connections opened since to go,
// and closes once the calls in flight are answered.
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { DestinationStream } from 'pino';
import type { Settings } from '../../config/settings.js';
import { listenerLogger } from '../../http/logging.js';
import { checkCall, GRPC_DECISION_LISTENER, type CheckCallDependencies } from './check-call.js';
import { DecisionHealth } from './decision-health.js';
import { authorizationService } from './proto-definitions.js';
import { decisionServerOptions } from './server-options.js';

export interface GrpcDecisionDependencies extends Omit<CheckCallDependencies, 'settings' | 'log'> {
  settings: Pick<Settings, 'trustedProxies' | 'decisionGrpcDeadlineMs' | 'maxBodyBytes' | 'logLevel' | 'logFormat'>;
  logStream?: DestinationStream | undefined;
}

export class GrpcDecisionListener {
  private readonly server: Server;
  private readonly health: DecisionHealth;
  /** host:port as bound, which grpc-js's unbind and drain name it by. */
  private bound: string | undefined;
  private readonly graceMs: number;

  constructor(deps: GrpcDecisionDependencies) {
    const log = listenerLogger(deps.settings.logLevel, deps.settings.logFormat, GRPC_DECISION_LISTENER, deps.logStream);
    this.server = new Server(decisionServerOptions(deps.settings));
    this.server.addService(authorizationService(), { Check: checkCall({ ...deps, log }) });
    this.health = new DecisionHealth(() => deps.notReady() === undefined);
    this.health.addTo(this.server);
    this.graceMs = deps.settings.decisionGrpcDeadlineMs + 1000;
  }

  /** Binds host:port (0: any free port); resolves with the port bound. */
  async listen(host: string, port: number): Promise<number> {
    const shown = host.includes(':') ? `[${host}]` : host;
    const bound = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`${shown}:${port}`, ServerCredentials.createInsecure(), (error, actual) => (error ? reject(error) : resolve(actual))),
    );
    this.bound = `${shown}:${bound}`;
    return bound;
  }

  /** NOT_SERVING from now on; the connections open now are asked to go once their calls are answered. */
  startDraining(): void {
    this.health.startDraining();
    this.goAway();
  }

  /** Closes the listening socket; the connections opened since the drain began are asked to go too. */
  stopAccepting(): void {
    if (this.bound === undefined) return;
    // drain first: it finds the connections through the bound port, which unbind forgets.
    this.goAway();
    this.server.unbind(this.bound);
  }

  /**
   * Resolves once every connection has closed after its calls were answered; past a call's longest
   * time (a health Watch stream never ends by itself), what is left is cut off.
   */
  close(): Promise<void> {
    this.health.stop();
    return new Promise((resolve) => {
      const cutOff = setTimeout(() => this.server.forceShutdown(), this.graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(cutOff);
        resolve();
      });
    });
  }

  /** Ends every connection at once, calls in flight with them. */
  forceClose(): void {
    this.health.stop();
    this.server.forceShutdown();
  }

  private goAway(): void {
    // A call outlives its GOAWAY by its deadline at most; past that its connection is reset.
    if (this.bound !== undefined) this.server.drain(this.bound, this.graceMs);
  }
}
