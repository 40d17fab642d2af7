// IPv6 cannot dodge the client-authentication throttle: every address of one /64 (the default
// GATEWAY_THROTTLE_IPV6_PREFIX) counts as one network, for the (client id, network) pair and the
// network ceilings alike, so one network spends at most the pair ceiling of a client's ceiling
// and the owner, from another network, keeps getting tokens. Addresses are simulated with
// X-Forwarded-For through a trusted 127.0.0.1.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { startTestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';
import { SMALL_THROTTLE } from '../helpers/throttle-settings.js';

const PROXIED = { trusted_proxies: ['127.0.0.1'] };
const SMALL = { ...PROXIED, ...SMALL_THROTTLE };

function from(address: string) {
  return { 'x-forwarded-for': address };
}

/** The i-th of many addresses in the /64 whose first four groups are network: varied interface identifiers. */
function hostIn(network: string, i: number): string {
  const group = (n: number) => ((Math.imul(i + 1, n) >>> 0) & 0xffff).toString(16);
  return `${network}:${group(0x9e37)}:${group(0x85eb)}:${group(0xc2b2)}:${(i & 0xffff).toString(16)}`;
}

function statuses(responses: LightMyRequestResponse[]): number[] {
  return responses.map((r) => r.statusCode);
}

function assertThrottled(t: Test, response: LightMyRequestResponse, windowSeconds: number, note: string): void {
  t.equal(response.statusCode, 429, note);
  const retryAfter = Number(response.headers['retry-after']);
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${response.headers['retry-after']}`);
  t.equal(response.json().error, 'too_many_requests');
  t.equal(response.json().message, `Too many failed attempts; retry in ${retryAfter} seconds.`);
}

function assertIssued(t: Test, response: LightMyRequestResponse, note: string): void {
  t.equal(response.statusCode, 200, note);
  t.match(response.json(), { token_type: 'Bearer', access_token: /^ey/, scope: 'sales' });
}

const TEN_THEN_REFUSED = [...Array<number>(10).fill(401), ...Array<number>(10).fill(429)];

for (const store of ['redis', 'embedded'] as const) {
  t.test(`20 wrong secrets from 20 addresses of one /64 are refused after 10, as from one IPv4 address (${store} store)`, async (t) => {
    const tg = await startTestGateway(t, { store, config: PROXIED });
    const victim = await createClient(tg, ['sales']);
    const fromV6: LightMyRequestResponse[] = [];
    for (let i = 0; i < 20; i++)
      fromV6.push(await tokenRequest(tg, { client_id: victim.client_id, client_secret: `guess-${i}` }, from(hostIn('2001:db8:66:1', i))));
    const fromV4: LightMyRequestResponse[] = [];
    for (let i = 0; i < 20; i++) fromV4.push(await tokenRequest(tg, { client_id: victim.client_id, client_secret: `guess-${i}` }, from('203.0.113.66')));
    t.same(statuses(fromV6), TEN_THEN_REFUSED, 'one /64: 10 checked, then 429');
    t.same(statuses(fromV4), statuses(fromV6), 'the same count as one IPv4 address');
    assertThrottled(t, fromV6[10]!, 300, 'the 11th address of the /64 is refused');
    assertThrottled(
      t,
      await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('2001:db8:66:1::1')),
      300,
      'any address of that /64 is done with this client, right secret or not',
    );
    assertIssued(
      t,
      await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('2001:db8:66:2::1')),
      'the owner, from the next /64, still gets a token',
    );
    t.same(tg.upstreams.public.received, []);
  });
}

for (const store of ['redis', 'embedded'] as const) {
  t.test(`1,000 wrong secrets sprayed over one /64 leave the owner able to get tokens (${store} store)`, async (t) => {
    // The defaults (10 per pair, 1,000 per client): per-address counters let this spray reach the
    // client's ceiling, after which its owner's right secret got 429.
    const tg = await startTestGateway(t, { store, config: PROXIED });
    const victim = await createClient(tg, ['sales']);
    const counts = { 401: 0, 429: 0, other: 0 };
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, from(hostIn('2001:db8:bad:7', batch * 50 + j))),
        ),
      );
      for (const { statusCode } of responses) {
        if (statusCode === 401 || statusCode === 429) counts[statusCode]++;
        else counts.other++;
      }
    }
    t.same(counts, { 401: 10, 429: 990, other: 0 }, 'the /64 spent 10 of the 1,000 failures the client may take');
    assertIssued(
      t,
      await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('2001:db8:600d::5')),
      'the owner, from its own /64, gets a token',
    );
    assertIssued(
      t,
      await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('198.51.100.10')),
      'and from an IPv4 address',
    );
  });
}

t.test('the per-network ceiling stops one /64 spraying many client ids', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const client = await createClient(tg, ['sales']);
  for (let i = 0; i < 5; i++)
    t.equal(
      (await tokenRequest(tg, { client_id: randomUUID(), client_secret: 'guess' }, from(hostIn('2001:db8:5:5', i)))).statusCode,
      401,
      `client id ${i}: 401`,
    );
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: randomUUID(), client_secret: 'guess' }, from(hostIn('2001:db8:5:5', 5))),
    120,
    'a sixth client id from a sixth address of the /64',
  );
  assertThrottled(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, from(hostIn('2001:db8:5:5', 6))),
    120,
    'any client from the /64, right secret or not',
  );
  assertIssued(
    t,
    await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret }, from('2001:db8:5:6::1')),
    'the same client from another /64 is fine',
  );
});

t.test('the per-client ceiling still counts failures from many networks, each /64 as one', async (t) => {
  const tg = await startTestGateway(t, { config: SMALL });
  const victim = await createClient(tg, ['sales']);
  const attempt = (address: string) => tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, from(address));
  const first: number[] = [];
  for (let i = 0; i < 5; i++) first.push((await attempt(hostIn('2001:db8:a:1', i))).statusCode);
  t.same(first, [401, 401, 401, 429, 429], 'the first /64 spends its 3');
  const second: number[] = [];
  for (let i = 0; i < 5; i++) second.push((await attempt(hostIn('2001:db8:a:2', i))).statusCode);
  t.same(second, [401, 401, 401, 429, 429], 'the second /64 spends its 3: the client is at its ceiling of 6');
  assertThrottled(t, await attempt('2001:db8:a:3::1'), 120, 'a third /64 is refused for this client');
  assertThrottled(t, await attempt('192.0.2.3'), 120, 'and so is an IPv4 address');
});

t.test('GATEWAY_THROTTLE_IPV6_PREFIX decides what one network is', async (t) => {
  t.test('/56: the /64s of one /56 count together', async (t) => {
    const tg = await startTestGateway(t, { config: { ...PROXIED, throttle_ipv6_prefix: 56 } });
    const victim = await createClient(tg, ['sales']);
    const responses: LightMyRequestResponse[] = [];
    // 2001:db8:77:100::/56 holds the /64s 2001:db8:77:100:: to 2001:db8:77:1ff::.
    for (let i = 0; i < 20; i++)
      responses.push(
        await tokenRequest(
          tg,
          { client_id: victim.client_id, client_secret: 'guess' },
          from(`2001:db8:77:1${(i * 11).toString(16).padStart(2, '0')}::${i + 1}`),
        ),
      );
    t.same(statuses(responses), TEN_THEN_REFUSED, '20 /64s of one /56: 10 checked, then 429');
    assertIssued(
      t,
      await tokenRequest(tg, { client_id: victim.client_id, client_secret: victim.client_secret }, from('2001:db8:77:200::1')),
      'the next /56 is another network',
    );
  });
  t.test('/128: each IPv6 address counts alone', async (t) => {
    const tg = await startTestGateway(t, { config: { ...PROXIED, throttle_ipv6_prefix: 128 } });
    const victim = await createClient(tg, ['sales']);
    const responses: LightMyRequestResponse[] = [];
    for (let i = 0; i < 20; i++)
      responses.push(await tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, from(hostIn('2001:db8:66:1', i))));
    t.same(statuses(responses), Array(20).fill(401), 'every address of the /64 has its own counters');
    const same: number[] = [];
    for (let i = 0; i < 11; i++)
      same.push((await tokenRequest(tg, { client_id: victim.client_id, client_secret: 'guess' }, from('2001:db8:66:1::abc'))).statusCode);
    t.same(same, [...Array<number>(10).fill(401), 429], 'one address still meets the pair ceiling');
  });
});
