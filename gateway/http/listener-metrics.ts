// A listener's load for the metrics: requests in flight (counted from arrival to the end of the
// response, whether it finished or the client left) and the connections it holds open (counted when
// Prometheus scrapes, not per request).
import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from '../metrics/metrics.js';

export function observeListenerLoad(app: FastifyInstance, listener: string, metrics: Pick<GatewayMetrics, 'inFlight' | 'observeConnections'>): void {
  const inFlight = metrics.inFlight.cell(listener);
  app.addHook('onRequest', (_request, reply, done) => {
    inFlight.inc();
    reply.raw.once('close', () => inFlight.dec());
    done();
  });
  metrics.observeConnections(listener, () => new Promise((resolve) => app.server.getConnections((error, count) => resolve(error ? 0 : count))));
}
