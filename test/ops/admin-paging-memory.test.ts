// Admin lists that scale: 20,000 service accounts in Redis, listed page by page through the admin
// API of a real gateway process. Every account is listed exactly once, and the process's resident
// memory stays flat (the unpaged list held about 10 KB per account at once: some 200 MB here).
// 20,000 rather than more: the seeding fills the shared Redis that other files scan meanwhile.
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { serviceAccountFromInput } from '../../gateway/admin/service-account-input.js';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { RedisCredentialStore } from '../../gateway/store/redis-store.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { residentBytes, sharedRedisDeployment } from '../helpers/process-ops.js';

const ACCOUNTS = 20_000;
/** Accounts per admin page: many pages, so the collector's sawtooth settles within one listing. */
const PAGE = 250;
const SEED_BATCH = 1000;
const MIB = 1024 * 1024;

t.test(`${ACCOUNTS} service accounts listed page by page: each once, memory flat`, async (t) => {
  const deployment = await sharedRedisDeployment(t, 'paging-memory');
  const prefix = deployment.env.GATEWAY_REDIS_KEY_PREFIX!;

  // Seed through the store itself (the admin API would take minutes), a batch at a time. A batch
  // of 1,000 scripts in flight can outlast the default command deadline on a busy machine: the
  // seeding is setup, not the subject, so it waits longer.
  const store = new RedisCredentialStore(deployment.env.REDIS_URL!, prefix, { commandTimeoutMs: 10_000 });
  await store.connect();
  const publicKey = sshPublicKeyLine(generateKeyPairSync('ed25519').privateKey);
  const seedStarted = Date.now();
  for (let created = 0; created < ACCOUNTS; created += SEED_BATCH) {
    const batch = Array.from({ length: SEED_BATCH }, (_, i) =>
      serviceAccountFromInput({ description: `account ${created + i}`, public_key: publicKey, permissions: ['view_balance'] }),
    );
    const results = await Promise.all(batch.map((account) => store.createServiceAccount(account)));
    if (!results.every(Boolean)) throw new Error('an account was not created');
  }
  await store.close();
  t.comment(`seeded ${ACCOUNTS} accounts in ${Date.now() - seedStarted} ms`);

  const gateway = await startGatewayProcess(t, { ...deployment.env, GATEWAY_LOG_LEVEL: 'warn' });
  const pid = gateway.child.pid!;
  const headers = { authorization: `Bearer ${deployment.adminToken}` };
  const page = async (cursor: string | null) => {
    const query = new URLSearchParams({ limit: String(PAGE), ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${gateway.adminUrl}/admin/v1/service-accounts?${query.toString()}`, { headers });
    if (response.status !== 200) throw new Error(`page failed: ${response.status} ${await response.text()}`);
    return (await response.json()) as { service_accounts: { id: string }[]; next_cursor: string | null };
  };

  /** Lists every account once, page by page, sampling RSS after each page. */
  const listAll = async () => {
    const seen = new Set<string>();
    let peak = 0;
    let pages = 0;
    let largestPage = 0;
    let cursor: string | null = null;
    const started = Date.now();
    do {
      const result = await page(cursor);
      for (const account of result.service_accounts) seen.add(account.id);
      largestPage = Math.max(largestPage, result.service_accounts.length);
      cursor = result.next_cursor;
      peak = Math.max(peak, residentBytes(pid));
      pages++;
    } while (cursor !== null && pages <= ACCOUNTS / PAGE + 1);
    return { seen, peak, pages, largestPage, ended: cursor === null, ms: Date.now() - started };
  };

  // Warm up with two pages, so that the baseline includes what the first requests allocate once.
  await page(null);
  await page(null);
  const baseline = residentBytes(pid);
  const first = await listAll();
  t.ok(first.ended, 'the last page says there is no next one');
  t.equal(first.pages, ACCOUNTS / PAGE, `${ACCOUNTS / PAGE} pages of ${PAGE}`);
  t.equal(first.largestPage, PAGE, 'no page is larger than the limit');
  t.equal(first.seen.size, ACCOUNTS, 'every account was listed, none twice');
  const second = await listAll();
  t.equal(second.seen.size, ACCOUNTS, 'a second listing sees them all again');

  const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
  t.comment(
    `RSS listing ${ACCOUNTS} accounts in pages of ${PAGE}: baseline ${mib(baseline)}, peak ${mib(first.peak)} in the first listing (${first.ms} ms), ${mib(second.peak)} in the second (${second.ms} ms)`,
  );
  // Each page leaves garbage (its JSON and objects) that the collector takes in a sawtooth, whose
  // height V8 decides; holding the list would instead grow with it, by about 10 KB per account
  // (some 200 MB for one listing here, 400 MB for both) on top of that sawtooth (measured +65 to
  // +106 MiB). Both listings stay under one bound: memory does not grow with the accounts listed.
  t.ok(first.peak - baseline < 160 * MIB, `bounded: +${mib(first.peak - baseline)} over the baseline`);
  t.ok(second.peak - baseline < 160 * MIB, `flat: the second listing peaked at +${mib(second.peak - baseline)}, the first at +${mib(first.peak - baseline)}`);
});
