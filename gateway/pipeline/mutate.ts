// Stage 4: what the upstream receives. Inbound credentials and every x-gateway-* header are
// removed; identity headers are always set by the gateway, so a client can never smuggle them.
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestContext } from './context.js';

const STRIPPED = new Set(['authorization', 'proxy-authorization', 'x-access-id', 'signature', 'signature-input', 'x-request-id', 'x-forwarded-for', 'forwarded']);

export function identityHeaders(context: RequestContext, requestId: string): Record<string, string> {
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (context.clientAddress) headers['x-forwarded-for'] = context.clientAddress.toString();
  const principal = context.principal;
  if (principal?.kind === 'client') {
    headers['x-gateway-client-id'] = principal.clientId;
    headers['x-gateway-scopes'] = principal.scopes.join(' ');
    if (principal.accountId) headers['x-gateway-account-id'] = principal.accountId;
  } else if (principal?.kind === 'service-account') {
    headers['x-gateway-service-account-id'] = principal.account.id;
    headers['x-gateway-permissions'] = principal.account.permissions.join(' ');
    if (principal.account.accountId) headers['x-gateway-account-id'] = principal.account.accountId;
  }
  return headers;
}

export function upstreamHeaders(inbound: IncomingHttpHeaders, context: RequestContext, requestId: string): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(inbound)) {
    if (STRIPPED.has(name) || name.startsWith('x-gateway-')) continue;
    out[name] = value;
  }
  return Object.assign(out, identityHeaders(context, requestId));
}

// Hop-by-hop response headers (RFC 9110 7.6.1) describe the gateway's connection to the upstream,
// not the client's connection to the gateway: forwarding "Connection: keep-alive" would override a
// client's "Connection: close" and keep its socket open.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'http2-settings']);

export function downstreamHeaders(upstream: IncomingHttpHeaders): IncomingHttpHeaders {
  const connection = upstream.connection;
  const named = new Set(
    (Array.isArray(connection) ? connection.join(',') : connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}
