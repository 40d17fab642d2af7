// Admin lists come in pages: limit (default 100, at most 1000) and cursor, with next_cursor null at
// the end; every record appears exactly once across the pages. A full Access ID finds its account
// for support staff without the ID being echoed. Bad paging input is a 400 naming the parameter.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createClient } from '../helpers/oauth.js';
import { adminInject, createServiceAccount, type TestServiceAccount } from '../helpers/signing.js';

async function allPages(tg: TestGateway, path: string, key: string, limit: number): Promise<{ pages: number; ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= 100; pages++) {
    const response = await adminInject(tg, { method: 'GET', url: `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}` });
    if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
    const page = response.json<Record<string, unknown>>();
    const items = page[key] as Array<{ id?: string; client_id?: string }>;
    sizes.push(items.length);
    ids.push(...items.map((item) => item.id ?? item.client_id!));
    cursor = page.next_cursor as string | null;
    if (cursor === null) return { pages, ids, sizes };
  }
  throw new Error('more than 100 pages');
}

for (const store of ['redis', 'embedded'] as const) {
  t.test(`${store}: every record once, in pages of at most limit`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const accounts: TestServiceAccount[] = [];
    for (let i = 0; i < 23; i++) accounts.push(await createServiceAccount(tg, { description: `account ${i}` }));
    const clients = await Promise.all(Array.from({ length: 12 }, () => createClient(tg, ['sales'])));

    const listed = await allPages(tg, '/admin/v1/service-accounts', 'service_accounts', 10);
    t.same(listed.sizes, [10, 10, 3], 'three pages: 10, 10, 3');
    t.same([...listed.ids].sort(), accounts.map((a) => a.account.id).sort(), 'every account exactly once');
    const listedClients = await allPages(tg, '/admin/v1/clients', 'clients', 5);
    t.same(listedClients.sizes, [5, 5, 2]);
    t.same([...listedClients.ids].sort(), clients.map((c) => c.client_id).sort());

    const first = await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' });
    t.equal(first.statusCode, 200);
    const body = first.json<{ service_accounts: unknown[]; next_cursor: string | null }>();
    t.equal(body.service_accounts.length, 23, 'the default page (100) holds them all');
    t.equal(body.next_cursor, null);
    t.notMatch(first.body, /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"/, 'no full Access ID in the list');

    // A record deleted between two pages is simply not listed; nothing breaks.
    const one = await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts?limit=5' });
    const cursor = one.json<{ next_cursor: string }>().next_cursor;
    const notYetListed = accounts
      .map((a) => a.account.id)
      .filter((id) => !one.json<{ service_accounts: Array<{ id: string }> }>().service_accounts.some((s) => s.id === id));
    t.equal((await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${notYetListed[0]}` })).statusCode, 204);
    const rest = await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts?limit=100&cursor=${encodeURIComponent(cursor)}` });
    t.equal(rest.statusCode, 200);
    t.equal(rest.json<{ service_accounts: unknown[] }>().service_accounts.length, 17, 'the rest, without the deleted one');
  });

  t.test(`${store}: an account found by its full Access ID, which is not echoed`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const sa = await createServiceAccount(tg, { description: 'support lookup' });
    await createServiceAccount(tg, { description: 'another' });
    const found = await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts?access_id=${sa.account.access_id}` });
    t.equal(found.statusCode, 200);
    const body = found.json<{ service_accounts: Array<{ id: string; access_id_hint: string; description: string }>; next_cursor: null }>();
    t.equal(body.service_accounts.length, 1);
    t.equal(body.service_accounts[0]!.id, sa.account.id);
    t.equal(body.service_accounts[0]!.description, 'support lookup');
    t.equal(body.next_cursor, null);
    t.notOk(found.body.includes(sa.account.access_id), 'the answer does not echo the Access ID');
    const missing = await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts?access_id=${randomUUID()}` });
    t.same(missing.json(), { service_accounts: [], next_cursor: null });
  });
}

t.test('bad paging input is a 400 naming the parameter', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const cases: Array<[string, string, RegExp]> = [
    ['/admin/v1/service-accounts?limit=0', 'limit', /limit: must be a whole number from 1 to 1000/],
    ['/admin/v1/service-accounts?limit=1001', 'limit', /from 1 to 1000/],
    ['/admin/v1/clients?limit=ten', 'limit', /whole number/],
    ['/admin/v1/clients?limit=5&limit=6', 'limit', /must be given once/],
    ['/admin/v1/clients?cursor=%20bad%20', 'cursor', /cursor: is not a cursor this API returned/],
    ['/admin/v1/clients?page=2', 'page', /page: is not a known query parameter \(known: limit, cursor\)/],
    ['/admin/v1/service-accounts?access_id=abc', 'access_id', /access_id: must be a full Access ID/],
    [`/admin/v1/service-accounts?access_id=${randomUUID()}&cursor=abc`, 'cursor', /cannot be combined with access_id/],
  ];
  for (const [url, field, message] of cases) {
    const response = await adminInject(tg, { method: 'GET', url });
    t.equal(response.statusCode, 400, url);
    const body = response.json<Record<string, string>>();
    t.equal(body.error, 'validation_error', url);
    t.equal(body.field, field, url);
    t.match(body.message, message, url);
  }
});
