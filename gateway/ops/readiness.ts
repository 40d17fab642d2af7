// Readiness: the gateway serves once the store answers, the shared keys (client-secret hashing key,
// JWT signing keys) are loaded from it, and its persistence is acceptable. None of that is awaited
// at start: the process starts and stays up while Redis is down (/healthz 200, /readyz 503, every
// public request 503), and what is missing is loaded in the background once the store answers.
import type { onRequestHookHandler } from 'fastify';
import type { Logger } from 'pino';
import { GatewayError, isGatewayError } from '../errors.js';
import type { ClientSecretHasher } from '../oauth/client-secrets.js';
import type { SigningKeys } from '../oauth/signing-keys.js';
import type { StoreBreaker } from '../store/circuit-breaker.js';
import { StoreUnavailableError, type CredentialStore } from '../store/types.js';
import { judgePersistence } from './persistence-verdict.js';

export interface ReadinessDependencies {
  breaker: StoreBreaker;
  /** Where the store is, for a person reading why it is down (never a password: describeRedis with redactUrl). */
  storeAddress: string;
  /** The guarded store. */
  store: CredentialStore;
  hasher: ClientSecretHasher;
  keys: SigningKeys;
  requirePersistence: boolean;
  production: boolean;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Called when the gateway must not run at all (production without the persistence it requires). */
  onFatal?: ((message: string) => void) | undefined;
  retryIntervalMs?: number;
}

export class Readiness {
  private persistence: 'pending' | 'ok' | 'refused' = 'pending';
  private persistenceProblem: string | undefined;
  /** Set on every reconnection: the server may have restarted with other settings. */
  private recheckPersistence = false;
  private attempting: Promise<void> | undefined;
  /** Once ready, a refusal found later (Redis restarted without persistence) makes it not ready, never exit. */
  private wasReady = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ReadinessDependencies) {
    deps.breaker.onTransition((event) => {
      if (event.kind !== 'up') return;
      this.recheckPersistence = true;
      // Re-reads that watchers attempted while the breaker was open failed: repeat them now, so a
      // key the store lost while down is written back (or adopted) at once.
      if (deps.hasher.loaded) void deps.hasher.sync().catch(() => {});
      if (deps.keys.loaded) void deps.keys.refresh().catch(() => {});
      void this.attempt();
    });
  }

  /** The first probe and load attempt; then retries run in the background until ready. */
  async start(): Promise<void> {
    await this.deps.breaker.start();
    await this.attempt();
    this.timer = setInterval(() => {
      if (!this.serving || this.recheckPersistence) void this.attempt();
    }, this.deps.retryIntervalMs ?? 1000);
    this.timer.unref();
  }

  /** Everything public requests need is loaded (the store may still be down: its calls then fail fast). */
  get serving(): boolean {
    return this.persistence === 'ok' && this.deps.hasher.loaded && this.deps.keys.loaded;
  }

  /** What is missing for readiness, with why; empty when ready. */
  missing(): { what: string; why: string }[] {
    const missing: { what: string; why: string }[] = [];
    const { breaker, hasher, keys } = this.deps;
    if (!breaker.up) missing.push({ what: 'store', why: `${this.deps.storeAddress}: ${breaker.downReason ?? 'not answering'}` });
    if (this.persistence === 'refused') missing.push({ what: 'redis_persistence', why: this.persistenceProblem ?? 'refused' });
    else if (this.persistence === 'pending') missing.push({ what: 'redis_persistence', why: 'not checked yet' });
    if (!hasher.loaded) missing.push({ what: 'client_secret_hash_key', why: hasher.problem ?? 'not loaded yet' });
    if (!keys.loaded) missing.push({ what: 'signing_keys', why: 'not loaded yet' });
    return missing;
  }

  /**
   * Redis Cluster masters that do not answer, with why: requests whose keys they hold get 503, the
   * others are served. Readiness does not wait for them: every instance shares the same masters,
   * so taking instances out of the load balancer would only stop what still works.
   */
  degraded(): { node: string; why: string }[] {
    return (this.deps.store.nodes?.states() ?? []).filter((state) => !state.up).map((state) => ({ node: state.node, why: state.reason ?? 'not answering' }));
  }

  /** The public listener's first hook: nothing is served, let alone forwarded, before readiness (a callback hook: no promise per request). */
  gate(): onRequestHookHandler {
    return (_request, _reply, done) => done(this.refusal());
  }

  /** What a request is answered with while the gateway is not ready; undefined once it is. */
  refusal(): GatewayError | undefined {
    if (this.serving) return undefined;
    return new GatewayError('store_unavailable', this.deps.breaker.up ? 'The gateway is not ready yet; the request was not forwarded.' : undefined);
  }

  close(): void {
    clearInterval(this.timer);
  }

  private attempt(): Promise<void> {
    this.attempting ??= this.load().finally(() => (this.attempting = undefined));
    return this.attempting;
  }

  private async load(): Promise<void> {
    const { breaker, hasher, keys, log } = this.deps;
    if (!breaker.up) return;
    try {
      if (this.persistence !== 'ok' || this.recheckPersistence) {
        this.recheckPersistence = false;
        await this.checkPersistence();
      }
      if (!hasher.loaded) await hasher.load();
      if (!keys.loaded) await keys.load();
      if (this.serving) this.wasReady = true;
    } catch (error) {
      // The store went away meanwhile: the breaker says so, and the next attempt retries.
      if (error instanceof StoreUnavailableError || (isGatewayError(error) && error.code === 'store_unavailable')) return;
      log.error({ err: error }, 'loading the shared keys failed; retrying');
    }
  }

  private async checkPersistence(): Promise<void> {
    const { store, log, requirePersistence, production } = this.deps;
    if (!store.persistence) {
      this.persistence = 'ok';
      return;
    }
    const verdict = judgePersistence(await store.persistence());
    if (verdict.status === 'durable') {
      if (verdict.warning) log.warn({ event: 'redis_persistence' }, verdict.warning);
      if (this.persistence === 'refused') log.info({ event: 'redis_persistence' }, 'Redis persistence is now acceptable');
      this.persistence = 'ok';
      this.persistenceProblem = undefined;
      return;
    }
    if (!requirePersistence) {
      // Once per check: at start and after each reconnection, not per retry.
      log.warn(
        { event: 'redis_persistence' },
        `${verdict.problem}. Set appendonly yes and appendfsync everysec (or always) on Redis; GATEWAY_REQUIRE_REDIS_PERSISTENCE=true refuses such a Redis`,
      );
      this.persistence = 'ok';
      return;
    }
    const refusedBefore = this.persistence === 'refused';
    this.persistence = 'refused';
    this.persistenceProblem = verdict.problem;
    const onFatal = production && !this.wasReady ? this.deps.onFatal : undefined;
    const message = `${verdict.problem}. GATEWAY_REQUIRE_REDIS_PERSISTENCE is true: ${onFatal ? 'refusing to start' : 'not ready'}. Set appendonly yes and appendfsync everysec (or always) on Redis, or GATEWAY_REQUIRE_REDIS_PERSISTENCE=false to accept the loss`;
    if (onFatal) onFatal(message);
    else if (!refusedBefore) log.error({ event: 'redis_persistence' }, message);
  }
}
