// GET /admin/v1/policy: the routes in force, and the scopes and permissions the policy declares,
// with their descriptions (what the CLI lists and credentials may be granted).
import type { RouteTable } from '../policy/route-table.js';

export function policyView(table: RouteTable) {
  return {
    routes: table.routes.map((r) => ({
      id: r.id,
      method: r.method,
      path: r.template,
      host: r.host,
      upstream: r.upstream,
      auth: r.auth,
      scopes: r.scopes,
      permissions: r.permissions,
      rate_limit: r.rateLimit ? { requests: r.rateLimit.requests, per_seconds: r.rateLimit.perSeconds } : null,
      digest: r.digest,
      message_signing: r.messageSigning,
    })),
    scopes: [...table.vocabulary.scopes.values()].map((s) => ({ name: s.name, description: s.description })),
    permissions: [...table.vocabulary.permissions.values()].map((p) => ({ name: p.name, description: p.description, moves_money: p.movesMoney })),
  };
}
