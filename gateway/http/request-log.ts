// One log line per request, written once its response is done (Fastify's own pair, "incoming
// request" and "request completed", is off): method, path (never the query), status, duration, and
// what the listener made of it (logFields: the route, the outcome, who it was from: a client id or a
// service account id, never a credential). Probes, /metrics and the dashboard's static files are
// logged at debug: there are many of them and they tell nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { levelEnabled } from './lazy-child-logger.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What a listener adds to the request's log line (route, outcome, principal). */
    logFields?: Readonly<Record<string, string | number | null>>;
  }
}

const QUIET = /^\/(healthz|readyz|metrics)$|^\/dashboard\/assets\//;

function pathOf(request: FastifyRequest): string {
  return request.url.split('?', 1)[0]!;
}

export function logEachRequest(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise per request for a line that is usually off.
  app.addHook('onResponse', (request, reply, done) => {
    const path = pathOf(request);
    const level = QUIET.test(path) ? 'debug' : 'info';
    if (levelEnabled(request.log, level)) {
      request.log[level](
        {
          method: request.method,
          path,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 10) / 10,
          outcome: request.errorCode ?? 'ok',
          ...request.logFields,
        },
        'request',
      );
    }
    done();
  });
}
