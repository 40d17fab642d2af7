// What the policy tests write: a directory of policy files, and declarations of the names their
// routes use.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

/** A scopes: mapping declaring the names the tests' bearer routes use. */
export const SCOPES_DECLARED =
  'scopes: { sales: Read sales, sales_refund: Refund sales, stats: Read sales statistics, events: Read events, products: Read products, webhooks: Manage webhooks }\n';
/** A permissions: mapping declaring the names the tests' signature routes use. */
export const PERMISSIONS_DECLARED =
  'permissions: { view_balance: View balance, view_transactions: View transactions, initiate_payment: { description: Create transfers, moves_money: true } }\n';

/** A fresh directory holding the files, removed when the test ends. */
export function policyDir(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-policy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
