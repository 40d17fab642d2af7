// What the store sends every keyed command through. Two things:
//  - a deadline: the command's answer, or a failure, within the command timeout plus a small
//    margin. ioredis's own timeout covers one attempt, but a Cluster client retries a command whose
//    connection closed, or that the cluster refused (CLUSTERDOWN), after a delay and a slot refresh,
//    up to 16 times: during a failover a 503 could otherwise take seconds;
//  - on a Cluster, the breaker of the master that holds the key's slot (node-breakers.ts): its
//    commands fail at once while that master is down, and nothing else does.
// Commands without a key (PING, INFO, SCAN on a node, pipelines) pass through as they are.
import { Cluster } from 'ioredis';
import { keySlot, SLOT_COUNT } from './cluster-slot.js';
import { NodeBreakers, type StoreNodes } from './node-breakers.js';
import { isUnavailability, NodeUnavailableError } from './node-unavailable-error.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, pingNode, type RedisClient, type RedisClientSettings } from './redis-connection.js';

/** Over the command timeout, so that ioredis's own timeout (the same error everywhere) usually comes first. */
export const DEADLINE_MARGIN_MS = 100;

/** Commands whose first argument is their (first) key; every key of one command shares a slot. */
const KEY_FIRST = new Set([
  'get',
  'set',
  'del',
  'exists',
  'mget',
  'pttl',
  'expire',
  'incr',
  'hget',
  'hmget',
  'hset',
  'hsetnx',
  'hdel',
  'hexists',
  'hscan',
  'zadd',
  'zrem',
  'zrange',
  'zrevrange',
  'zrevrangebyscore',
  'zscan',
  'zscore',
  'zcard',
  'consumeNonce',
  'consumeNonceNamingMaster',
  'recordUse',
]);
/** Scripts: the key count, then the keys (EVAL script numkeys key..., EVALSHA sha numkeys key...). */
const SCRIPTS = new Set(['eval', 'evalsha']);
/** Defined commands with a variable key count: the count first, then the keys. */
const COUNT_FIRST = new Set(['reserveFailureAttempt', 'releaseFailureAttempt']);

/** The key that decides where a command goes; undefined for a command this module does not route. */
export function routingKeyOf(command: string, args: readonly unknown[]): string | undefined {
  const key = KEY_FIRST.has(command)
    ? args[0]
    : SCRIPTS.has(command)
      ? Number(args[1]) > 0
        ? args[2]
        : undefined
      : COUNT_FIRST.has(command)
        ? Number(args[0]) > 0
          ? args[1]
          : undefined
        : undefined;
  if (Array.isArray(key)) return typeof key[0] === 'string' ? key[0] : undefined;
  return typeof key === 'string' ? key : undefined;
}

export class DeadlineError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/** The promise, or a DeadlineError after ms. */
export function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The masters of a Cluster as its client knows them: who owns a slot, which own any. */
class ClusterMap {
  private masters: string[] | undefined;

  constructor(private readonly cluster: Cluster) {
    // ioredis emits refresh after each new slot map.
    cluster.on('refresh', () => (this.masters = undefined));
  }

  ownerOf(slot: number): string | undefined {
    return this.cluster.slots[slot]?.[0];
  }

  list(): string[] {
    this.masters ??= [...new Set(this.cluster.slots.map((nodes) => nodes?.[0]).filter((node): node is string => node !== undefined))];
    return this.masters;
  }

  /** Asks the cluster for the slot map again; resolves when it has (or could not), at most after timeoutMs. */
  refresh(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.cluster.refreshSlotsCache(() => {
        clearTimeout(timer);
        this.masters = undefined;
        resolve();
      });
    });
  }
}

/** host:port, for an IPv6 host too (the port follows the last colon). */
function addressOf(node: string): { host: string; port: number } {
  const colon = node.lastIndexOf(':');
  return { host: node.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(node.slice(colon + 1)) };
}

export interface RoutedClient {
  /** The client to send commands through (same type: a Proxy of the client). */
  client: RedisClient;
  /** The per-master breakers of a Cluster; undefined on one server or Sentinel. */
  nodes: (StoreNodes & { close(): void }) | undefined;
  /** Whether any master answers a PING (a Cluster's health for the store-wide breaker). */
  pingAnyMaster(): Promise<void>;
}

export function routeCommands(client: RedisClient, settings: RedisClientSettings, options: { probeIntervalMs?: number } = {}): RoutedClient {
  const deadlineMs = (settings.redisCommandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS) + DEADLINE_MARGIN_MS;
  const { probeIntervalMs } = options;
  const cluster = client instanceof Cluster ? client : undefined;
  const map = cluster ? new ClusterMap(cluster) : undefined;
  const breakers =
    map &&
    new NodeBreakers({
      masters: () => map.list(),
      probeIntervalMs,
      probe: async (node) => {
        await map.refresh(Math.max(deadlineMs, 1000));
        if (!map.list().includes(node)) return 'moved';
        const { host, port } = addressOf(node);
        await withinDeadline(pingNode(settings, host, port), deadlineMs);
        return 'up';
      },
    });

  const send = (name: string, method: (...args: unknown[]) => Promise<unknown>, args: unknown[]): Promise<unknown> => {
    const attempt = () => withinDeadline(method.apply(client, args), deadlineMs);
    const key = routingKeyOf(name, args);
    // Not routable (or the cluster is not ready: ioredis refuses everything, a store-wide failure).
    if (!map || !breakers || key === undefined || cluster!.status !== 'ready') return attempt();
    const slot = keySlot(key);
    const node = map.ownerOf(slot);
    if (node !== undefined) return breakers.run(node, attempt);
    // A slot no master owns in the client's map: that slot is down, not the store.
    return attempt().catch((error: unknown) => {
      throw isUnavailability(error) ? new NodeUnavailableError(`slot ${slot} of ${SLOT_COUNT}`, error) : error;
    });
  };

  // Every method runs on the client itself, never with the proxy as `this`: ioredis copies a
  // client's command functions into the pipelines it makes (its auto-pipelines too), and a routed
  // function in one would send its command outside the pipeline.
  const wrapped = new Map<PropertyKey, { value: unknown; wrapper: unknown }>();
  const proxy = new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const cached = wrapped.get(property);
      if (cached?.value === value) return cached.wrapper;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      const routed = typeof property === 'string' && (KEY_FIRST.has(property) || SCRIPTS.has(property) || COUNT_FIRST.has(property));
      const wrapper = routed ? (...args: unknown[]) => send(property, method, args) : method.bind(target);
      wrapped.set(property, { value, wrapper });
      return wrapper;
    },
  });

  return {
    client: proxy,
    nodes: breakers,
    async pingAnyMaster() {
      if (!cluster) {
        await withinDeadline(client.ping(), deadlineMs);
        return;
      }
      const masters = cluster.nodes('master');
      if (cluster.status !== 'ready' || masters.length === 0) throw new Error(`the cluster is not ready (${cluster.status})`);
      await Promise.any(masters.map((master) => withinDeadline(master.ping(), deadlineMs))).catch((error: unknown) => {
        throw error instanceof AggregateError ? (error.errors[0] as Error) : error;
      });
    },
  };
}
