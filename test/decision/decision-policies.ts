// A policy directory for decision tests: the repository's policies plus a signed route that
// delegates its digest check upstream and a rate-limited bearer route.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { REPO_ROOT } from '../helpers/gateway.js';

export const DELEGATED_ROUTE = '/v1/delegated-transfers';
export const LIMITED_ROUTE = '/v1/limited';

export function decisionPolicies(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-decision-policies-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(REPO_ROOT, 'policies'), dir, { recursive: true });
  writeFileSync(
    join(dir, 'decision.yaml'),
    `upstream: banking
auth: signature
routes:
  - { method: POST, path: ${DELEGATED_ROUTE}, permissions: [initiate_payment], digest: upstream }
  - { method: GET, path: ${LIMITED_ROUTE}, upstream: public, auth: bearer, scopes: [sales], rate_limit: { requests: 1, per: 1m } }
`,
  );
  return dir;
}

/** Settings of a gateway with a decision listener that trusts loopback callers. */
export function decisionConfig(t: Test, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { decision_port: 0, trusted_proxies: ['127.0.0.1/32'], policies_dir: decisionPolicies(t), ...extra };
}
