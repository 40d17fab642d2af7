// Stage 1: which route is this, is its path unambiguous, and who is the client at the socket.
import type { FastifyRequest } from 'fastify';
import type { Settings } from '../config/settings.js';
import { GatewayError } from '../errors.js';
import { clientAddressOf } from '../net/client-ip.js';
import { checkTarget } from '../policy/path-safety.js';
import type { RouteTable } from '../policy/route-table.js';
import type { RequestContext } from './context.js';

/** The Host header without its port, lower-cased ("[::1]:8080" -> "[::1]"). */
export function hostOf(request: FastifyRequest): string {
  const host = (request.headers.host ?? '').toLowerCase();
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':', 1)[0]!;
}

export function identify(request: FastifyRequest, routes: RouteTable, settings: Pick<Settings, 'trustedProxies'>): RequestContext {
  const target = checkTarget(request.url);
  const route = routes.match(request.method, hostOf(request), target.segments);
  if (!route) throw new GatewayError('route_not_found', `No route matches ${request.method} ${target.path}.`);
  return { target, route, clientAddress: clientAddressOf(request, settings.trustedProxies) };
}
