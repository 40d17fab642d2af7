// The Redis side of rate limits (gateway/store/redis-rate-limit.ts) on the real Redis: one key per
// credential and route, carrying the credential in a hash tag, holding the TAT in whole
// microseconds and kept only until the TAT has passed; one command per request; a refusal writes
// nothing; a flushed script cache costs one extra EVAL, not a failure.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { rateLimitKey, takeRateLimit } from '../../gateway/store/redis-rate-limit.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';

async function client(t: Test): Promise<{ redis: Redis; prefix: string }> {
  const prefix = uniquePrefix('rl');
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(async () => {
    redis.disconnect();
    await deleteKeysWithPrefix(prefix);
  });
  return { redis, prefix };
}

/** The client's commands, counted by name, passed through to it. */
function counting(redis: Redis, calls: string[], noScript = false): Redis {
  return new Proxy(redis, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name !== 'evalsha' && name !== 'eval') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        if (name === 'evalsha' && noScript) return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

t.test('the key: prefix, rl:, the credential as hash tag, the route id', async (t) => {
  t.equal(rateLimitKey('gateway:', 'c1d2', 'public:GET /v1/sales/{id}'), 'gateway:rl:{c1d2}:public:GET /v1/sales/{id}');
});

t.test('one key holding the TAT in microseconds, kept until the TAT has passed; a refusal writes nothing', async (t) => {
  const { redis, prefix } = await client(t);
  const key = rateLimitKey(prefix, randomUUID(), 'public:GET /v1/sales');
  const rule = { requests: 2, perSeconds: 1 };
  const calls: string[] = [];
  const before = Date.now() * 1000;
  t.match(await takeRateLimit(counting(redis, calls), key, rule), { allowed: true, remaining: 1 });
  t.same(calls, ['evalsha'], 'one command');
  const tat = await redis.get(key);
  t.match(tat, /^\d{16}$/, 'all digits of the microseconds');
  t.ok(Math.abs(Number(tat) - (before + 500_000)) < 200_000, 'now plus one interval (500 ms)');
  const ttl = await redis.pttl(key);
  t.ok(ttl > 0 && ttl <= 500, `expires with the TAT (${ttl} ms)`);
  await takeRateLimit(redis, key, rule);
  const full = await redis.get(key);
  t.equal((await takeRateLimit(redis, key, rule)).allowed, false);
  t.equal(await redis.get(key), full, 'the refusal left the TAT as it was');
  t.same(await redis.keys(`${prefix}*`), [key], 'nothing else was written');
});

t.test('after a script flush (failover, restart) the script is sent once with EVAL', async (t) => {
  const { redis, prefix } = await client(t);
  const calls: string[] = [];
  const decision = await takeRateLimit(counting(redis, calls, true), rateLimitKey(prefix, randomUUID(), 'r'), { requests: 5, perSeconds: 60 });
  t.same(decision, { allowed: true, remaining: 4, retryAfterSeconds: 0, resetSeconds: 12 });
  t.same(calls, ['evalsha', 'eval']);
});
