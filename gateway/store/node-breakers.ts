// A circuit breaker per Redis Cluster master. While one master fails over, only the requests whose
// keys live on it fail (503, at once after a run of failures opens its breaker); the other masters
// keep serving, and the store-wide breaker (circuit-breaker.ts) does not count these failures.
// Breakers are keyed by the master's address: once its slots move to the promoted replica, those
// keys go to another address, whose breaker is closed, so they are served as soon as the client
// knows the new map. The probe of an open breaker refreshes that map, so it knows soon.
import { StoreBreaker, type BreakerEvent } from './circuit-breaker.js';
import { isUnavailability, NodeUnavailableError } from './node-unavailable-error.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

export interface NodeState {
  /** host:port */
  node: string;
  up: boolean;
  /** Why it counts as down (the last failure); undefined while up. */
  reason: string | undefined;
}

export type NodeEvent = { kind: 'down'; node: string; reason: string } | { kind: 'up'; node: string; outageMs: number; moved: boolean };

/** The per-node view a store gives the metrics, the logs and readiness. */
export interface StoreNodes {
  /** Every master that owns slots now, and every node whose breaker is open. */
  states(): NodeState[];
  onTransition(listener: (event: NodeEvent) => void): () => void;
}

export interface NodeBreakerOptions {
  /** The masters that own slots now (host:port). */
  masters(): readonly string[];
  /** Resolves 'up' when the node answers, 'moved' when it owns no slot any more (nothing depends on it); rejects while down. */
  probe(node: string): Promise<'up' | 'moved'>;
  failureThreshold?: number;
  probeIntervalMs?: number;
}

const anyUnavailability = (error: unknown) => error instanceof StoreUnavailableError;

export class NodeBreakers implements StoreNodes {
  private readonly breakers = new Map<string, StoreBreaker>();
  /** Nodes whose last probe found their slots gone. */
  private readonly moved = new Set<string>();
  private readonly listeners = new Set<(event: NodeEvent) => void>();
  private closed = false;

  constructor(private readonly options: NodeBreakerOptions) {}

  /**
   * Runs a command for a key held by `node`: refused at once (NodeUnavailableError) while its
   * breaker is open; a failure that says the node is unavailable becomes a NodeUnavailableError and
   * counts for that node. When every master's breaker is open, the refusal is a plain
   * StoreUnavailableError: the whole store is down, and the store-wide breaker counts it.
   */
  async run<T>(node: string, call: () => Promise<T>): Promise<T> {
    try {
      return await this.breakerOf(node).run(async () => {
        try {
          return await call();
        } catch (error) {
          throw isUnavailability(error) ? new NodeUnavailableError(node, error) : error;
        }
      });
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || error instanceof NodeUnavailableError) throw error;
      if (this.allDown()) throw error;
      throw new NodeUnavailableError(node, error);
    }
  }

  states(): NodeState[] {
    const masters = new Set(this.options.masters());
    for (const [node, breaker] of this.breakers) {
      // A closed breaker of a node that left the map (an old master, now a replica or gone).
      if (breaker.up && !masters.has(node)) this.forget(node);
    }
    const nodes = [...new Set([...masters, ...this.breakers.keys()])].sort();
    return nodes.map((node) => {
      const breaker = this.breakers.get(node);
      return { node, up: breaker?.up ?? true, reason: breaker?.downReason };
    });
  }

  onTransition(listener: (event: NodeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    for (const node of [...this.breakers.keys()]) this.forget(node);
    this.listeners.clear();
  }

  private allDown(): boolean {
    const masters = this.options.masters();
    return masters.length > 0 && masters.every((node) => this.breakers.get(node)?.up === false);
  }

  private breakerOf(node: string): StoreBreaker {
    let breaker = this.breakers.get(node);
    if (breaker) return breaker;
    const made = new StoreBreaker({
      initiallyUp: !this.closed,
      counts: anyUnavailability,
      failureThreshold: this.options.failureThreshold,
      probeIntervalMs: this.options.probeIntervalMs,
      probe: async () => {
        if ((await this.options.probe(node)) === 'moved') this.moved.add(node);
      },
    });
    made.onTransition((event) => this.transition(node, event));
    this.breakers.set(node, made);
    breaker = made;
    return breaker;
  }

  private transition(node: string, event: BreakerEvent): void {
    if (event.kind === 'down') {
      this.emit({ kind: 'down', node, reason: event.reason });
      return;
    }
    const moved = this.moved.delete(node);
    this.emit({ kind: 'up', node, outageMs: event.outageMs, moved });
    if (moved) this.forget(node);
  }

  private forget(node: string): void {
    this.breakers.get(node)?.close();
    this.breakers.delete(node);
    this.moved.delete(node);
  }

  private emit(event: NodeEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
