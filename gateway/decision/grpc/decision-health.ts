// grpc.health.v1.Health on the gRPC decision listener (grpc-health-check, grpc-node's own), so
// Envoy's gRPC health checker and Kubernetes' grpc probes can use it. SERVING while the gateway is
// ready (its store answers and the shared keys are loaded) and not stopping; NOT_SERVING otherwise:
// Envoy then sends decisions to other instances, while this one still answers what reaches it.
// Both the server as a whole ("") and the authorization service answer.
import type { Server } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { AUTHORIZATION_SERVICE } from './proto-definitions.js';

const SERVICES = ['', AUTHORIZATION_SERVICE] as const;
/** How often readiness is looked at: Watch streams hear of a change within this. */
const SYNC_MS = 1000;

export class DecisionHealth {
  private readonly health = new HealthImplementation();
  private draining = false;
  private current: ServingStatus | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ready: () => boolean) {
    this.sync();
  }

  addTo(server: Server): void {
    this.health.addToServer(server);
    this.timer ??= setInterval(() => this.sync(), SYNC_MS).unref();
  }

  /** From now on NOT_SERVING, at once. */
  startDraining(): void {
    this.draining = true;
    this.sync();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sync(): void {
    const status: ServingStatus = !this.draining && this.ready() ? 'SERVING' : 'NOT_SERVING';
    if (status === this.current) return;
    this.current = status;
    for (const service of SERVICES) this.health.setStatus(service, status);
  }
}
