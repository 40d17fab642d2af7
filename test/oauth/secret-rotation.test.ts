// Rolling an OAuth client's secret (POST /admin/v1/clients/{id}/secret): the new secret works at
// once and is shown only in that answer; the old one works for the grace period, then is refused
// (at once with no grace); at most two secrets work; tokens already issued stay valid. On both stores.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import type { RolledSecretView } from '../../gateway/admin/clients-routes.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { accessToken, createClient, tokenRequest, type CreatedClient } from '../helpers/oauth.js';

function admin(tg: TestGateway, method: string, url: string, payload?: unknown) {
  return tg.gateway.adminApp.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${tg.adminToken}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
  });
}

async function roll(t: Test, tg: TestGateway, clientId: string, payload?: unknown): Promise<RolledSecretView> {
  const response = await admin(tg, 'POST', `/admin/v1/clients/${clientId}/secret`, payload);
  t.equal(response.statusCode, 200, response.statusCode === 200 ? 'the roll answered 200' : response.body);
  t.equal(response.headers['cache-control'], 'no-store');
  return response.json<RolledSecretView>();
}

async function tokenStatus(tg: TestGateway, clientId: string, secret: string): Promise<number> {
  return (await tokenRequest(tg, { client_id: clientId, client_secret: secret })).statusCode;
}

const sales = (tg: TestGateway, token: string) =>
  tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/sales', headers: { authorization: `Bearer ${token}` } });

/** Waits until the moment has passed (plus a margin for clock granularity), at most 5 s. */
async function waitPast(iso: string): Promise<void> {
  const wait = Date.parse(iso) - Date.now() + 150;
  if (wait > 5000) throw new Error(`refusing to wait ${wait} ms`);
  if (wait > 0) await sleep(wait);
}

for (const store of ['redis', 'embedded'] as const) {
  t.test(`${store}: with a grace period the old secret works until it ends, the new one at once; tokens stay valid`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const client = await createClient(tg, ['sales']);
    const before = await accessToken(tg, client);

    const started = Date.now();
    const rolled = await roll(t, tg, client.client_id, { grace_seconds: 2 });
    t.equal(rolled.client_id, client.client_id);
    t.not(rolled.client_secret, client.client_secret, 'a new secret');
    t.match(rolled.client_secret, /^[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
    t.ok(rolled.previous_secret_expires_at, 'the old secret has an end');
    const ends = Date.parse(rolled.previous_secret_expires_at!);
    t.ok(ends >= started + 2000 && ends <= Date.now() + 2000, 'the grace ends grace_seconds from the roll');

    t.equal(await tokenStatus(tg, client.client_id, rolled.client_secret), 200, 'the new secret works at once');
    t.equal(await tokenStatus(tg, client.client_id, client.client_secret), 200, 'the old secret works during the grace period');
    const duringGrace = await accessToken(tg, client);
    t.equal((await sales(tg, before)).statusCode, 200, 'a token issued before the roll stays valid');

    await waitPast(rolled.previous_secret_expires_at!);
    const refused = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret });
    t.equal(refused.statusCode, 401, 'the old secret is refused once the grace period ended');
    t.equal(refused.json<{ error: string }>().error, 'auth_error');
    t.equal(await tokenStatus(tg, client.client_id, rolled.client_secret), 200, 'the new secret still works');
    t.equal((await sales(tg, before)).statusCode, 200, 'tokens issued before the roll stay valid after the grace period');
    t.equal((await sales(tg, duringGrace)).statusCode, 200, 'and so do tokens the old secret got during it');
  });

  t.test(`${store}: without a grace period the old secret is refused at once`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const client = await createClient(tg, ['sales']);
    const before = await accessToken(tg, client);

    const rolled = await roll(t, tg, client.client_id, { grace_seconds: 0 });
    t.equal(rolled.previous_secret_expires_at, null);
    t.equal(await tokenStatus(tg, client.client_id, client.client_secret), 401, 'the old secret is refused at once');
    t.equal(await tokenStatus(tg, client.client_id, rolled.client_secret), 200, 'the new secret works');
    t.equal((await sales(tg, before)).statusCode, 200, 'rolling a secret is not revoking: the token stays valid');

    const bodiless = await roll(t, tg, client.client_id);
    t.equal(bodiless.previous_secret_expires_at, null, 'no body: no grace period');
    t.equal(await tokenStatus(tg, client.client_id, rolled.client_secret), 401);
    t.equal(await tokenStatus(tg, client.client_id, bodiless.client_secret), 200);
  });

  t.test(`${store}: rolling again during a grace period ends the oldest secret: at most two work`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const client = await createClient(tg, ['sales']);
    const second = await roll(t, tg, client.client_id, { grace_seconds: 600 });
    const third = await roll(t, tg, client.client_id, { grace_seconds: 600 });
    t.equal(await tokenStatus(tg, client.client_id, client.client_secret), 401, 'the first secret is refused');
    t.equal(await tokenStatus(tg, client.client_id, second.client_secret), 200, 'the second works for the new grace period');
    t.equal(await tokenStatus(tg, client.client_id, third.client_secret), 200, 'the third works');

    const fourth = await roll(t, tg, client.client_id, { grace_seconds: 0 });
    t.equal(await tokenStatus(tg, client.client_id, second.client_secret), 401);
    t.equal(await tokenStatus(tg, client.client_id, third.client_secret), 401, 'a roll without grace ends the grace period of the one before');
    t.equal(await tokenStatus(tg, client.client_id, fourth.client_secret), 200);
  });

  t.test(`${store}: the secret is in the roll's answer only; the admin API never shows it; audited without it`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const client = await createClient(tg, ['sales', 'stats'], { account_id: 'acct-9' });
    const rolled = await roll(t, tg, client.client_id, { grace_seconds: 60 });
    const { client_secret: _created, ...view } = client;
    t.same(Object.keys(rolled).sort(), [...Object.keys(view), 'client_secret', 'previous_secret_expires_at'].sort());
    t.same(
      { ...rolled, client_secret: undefined, previous_secret_expires_at: undefined },
      { ...view, client_secret: undefined, previous_secret_expires_at: undefined },
      'the client is otherwise unchanged',
    );

    const shown = await admin(tg, 'GET', `/admin/v1/clients/${client.client_id}`);
    // Shown and listed with its last use (none yet: uses are written every few seconds).
    t.same(shown.json(), { ...view, last_used_at: null }, 'show: the same view as before the roll');
    const listed = await admin(tg, 'GET', '/admin/v1/clients');
    t.same(listed.json(), { clients: [{ ...view, last_used_at: null }], next_cursor: null }, 'list: the same');
    for (const body of [shown.body, listed.body]) {
      t.notMatch(body, rolled.client_secret, 'never the new secret');
      t.notMatch(body, client.client_secret, 'never the old one');
      t.notMatch(body, /[0-9a-f]{64}/, 'never a hash');
    }

    const lines = tg.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const event = lines.find((line) => line.audit === 'credential.rotated');
    t.match(event, {
      kind: 'oauth_client',
      client_id: client.client_id,
      grace_seconds: 60,
      previous_secret_expires_at: rolled.previous_secret_expires_at,
      by: 'admin-token',
    });
    t.notMatch(tg.logs.text, rolled.client_secret, 'the log never holds the new secret');
    t.notMatch(tg.logs.text, client.client_secret, 'nor the old one');
  });

  t.test(`${store}: bad input is refused with a 400 naming the field, and changes nothing; unknown clients 404`, async (t) => {
    const tg = await startTestGateway(t, { store });
    const client = await createClient(tg, ['sales']);
    const url = `/admin/v1/clients/${client.client_id}/secret`;
    const cases: [unknown, string][] = [
      [{ grace_seconds: -1 }, 'grace_seconds'],
      [{ grace_seconds: 1.5 }, 'grace_seconds'],
      [{ grace_seconds: '10' }, 'grace_seconds'],
      [{ grace_seconds: null }, 'grace_seconds'],
      [{ grace_seconds: 604_801 }, 'grace_seconds'],
      [{ grace_seconds: 1e300 }, 'grace_seconds'],
      [{ grace: 10 }, 'grace'],
      [[10], 'body'],
    ];
    for (const [payload, field] of cases) {
      const response = await admin(tg, 'POST', url, payload);
      t.equal(response.statusCode, 400, JSON.stringify(payload));
      const body = response.json<{ error: string; field: string; message: string }>();
      t.equal(body.error, 'validation_error');
      t.equal(body.field, field, `${JSON.stringify(payload)} names ${field}`);
      t.match(body.message, new RegExp(`^${field}: `));
    }
    const range = (await admin(tg, 'POST', url, { grace_seconds: 604_801 })).json<{ message: string }>();
    t.match(range.message, /0 to 604800/, 'says what is allowed');
    t.equal(await tokenStatus(tg, client.client_id, client.client_secret), 200, 'the refused rolls changed nothing');

    const maximum = await roll(t, tg, client.client_id, { grace_seconds: 604_800 });
    t.ok(Date.parse(maximum.previous_secret_expires_at!) > Date.now() + 604_000_000, 'seven days is allowed');

    for (const id of [randomUUID(), 'not-a-uuid']) {
      const response = await admin(tg, 'POST', `/admin/v1/clients/${id}/secret`, { grace_seconds: 10 });
      t.equal(response.statusCode, 404, id);
      t.equal(response.json<{ error: string }>().error, 'not_found');
    }
    t.notOk(
      tg.logs.lines.some((line) => line.includes('credential.rotated') && !line.includes(client.client_id)),
      'no audit line for a roll that did not happen',
    );

    const unauthorized = await tg.gateway.adminApp.inject({ method: 'POST', url, payload: { grace_seconds: 10 } });
    t.equal(unauthorized.statusCode, 401, 'the admin token is required');
    t.equal(await tokenStatus(tg, client.client_id, maximum.client_secret), 200);
  });
}

t.test('a deleted client cannot roll its secret', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const client: CreatedClient = await createClient(tg, ['sales']);
  await admin(tg, 'DELETE', `/admin/v1/clients/${client.client_id}`);
  const response = await admin(tg, 'POST', `/admin/v1/clients/${client.client_id}/secret`, { grace_seconds: 10 });
  t.equal(response.statusCode, 404);
});
