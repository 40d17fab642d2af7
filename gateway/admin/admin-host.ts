// DNS-rebinding defence for the admin listener: a page on attacker.example that re-resolves its
// name to 127.0.0.1 reaches the listener with "Host: attacker.example", so the Host must be an IP
// literal (a rebinding attack needs a name; probes and scrapers use addresses) or a configured name.
import { isIP } from 'node:net';
import type { onRequestAsyncHookHandler } from 'fastify';
import { GatewayError } from '../errors.js';
import { authorityOf, hostOfAuthority } from '../pipeline/original-request.js';

export function requireAdminHost(hostnames: readonly string[]): onRequestAsyncHookHandler {
  const allowed = new Set(hostnames);
  return async (request) => {
    const host = hostOfAuthority(authorityOf(request.headers.host));
    if (allowed.has(host) || isIP(host.startsWith('[') ? host.slice(1, -1) : host) !== 0) return;
    throw new GatewayError('host_not_allowed', 'The admin listener does not answer to this Host; use its address or a name listed in GATEWAY_ADMIN_HOSTNAMES.');
  };
}
