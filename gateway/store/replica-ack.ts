// Writes confirmed on replicas. Redis answers a write once the master has it and replicates it
// afterwards, so a master lost just after a deletion can leave a promoted replica that never saw it,
// and the credential works again although the admin API said it was deleted. A confirmed write is
// sent in one pipeline with a barrier and `WAIT replicas timeout`: WAIT blocks until that many
// replicas acknowledged the connection's writes (or the timeout passes) and answers how many did.
// The three go on one connection to the master holding the written key (confirming-connections.ts:
// not the store's own, which WAIT would block), so they are answered by one master, or fail together.
//
// The barrier is a write that always replicates (a key of the same slot set and deleted in one
// script, so nobody ever sees it): WAIT counts acknowledgements of the connection's last write that
// replicated, and a write that changed nothing (deleting what is already gone, on a repeat)
// replicates nothing. After the barrier, WAIT covers everything the master took before it, from any
// connection: a repeated delete answers only once its earlier, unconfirmed attempt is on a replica.
import { Command, type ChainableCommander, type Pipeline } from 'ioredis';
import type { ConfirmingConnections } from './confirming-connections.js';

export interface ReplicaAckSettings {
  /** Replicas that must have a write before it counts; 0: none (no WAIT is sent). */
  readonly replicas: number;
  /** WAIT's timeout. */
  readonly timeoutMs: number;
}

/** What was written: an admin change (which may be repeated), or a signed request's nonce (not forwarded). */
export type ConfirmedSubject = 'change' | 'nonce';

/** Fewer replicas than required acknowledged a write in time: it may or may not survive a failover. */
export class ChangeNotConfirmedError extends Error {
  constructor(
    readonly subject: ConfirmedSubject,
    readonly acknowledged: number,
    readonly required: number,
    cause?: unknown,
  ) {
    super(`${acknowledged} of ${required} replicas acknowledged the write in time`, { cause });
    this.name = 'ChangeNotConfirmedError';
  }
}

// KEYS: the barrier key (in the written key's slot). Sets and deletes it: replicated, invisible.
const BARRIER = `
redis.call('SET', KEYS[1], '1')
redis.call('DEL', KEYS[1])
return 1`;

/**
 * A key in the slot of `key`, used by nothing else: the key with a suffix when it carries a hash
 * tag (the tag still decides the slot), else the whole key as tag. Undefined for a tagless key with
 * braces in it (no key of its slot can be named): then no barrier, which only a write that always
 * replicates (SET) may do without.
 */
export function barrierKey(key: string): string | undefined {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  if (close > open + 1) return `${key}:replica-ack`;
  return key.includes('{') || key.includes('}') ? undefined : `{${key}}:replica-ack`;
}

export interface ConfirmOptions<T> {
  /** What the write is, for the error; default a change. */
  readonly subject?: ConfirmedSubject;
  /** False when the write always replicates whenever it matters (a nonce consumed): no barrier. */
  readonly barrier?: boolean;
  /** Whether this answer needs the replicas (a refused nonce does not); default every answer. */
  readonly needed?: (answer: T) => boolean;
}

/** Redis did not run the command there: another master holds the slot now (nothing was written). */
const REDIRECTED = /^(MOVED|ASK) /;

export class ReplicaAck {
  constructor(
    /** Where the writes go: connections of their own when replicas are required (WAIT blocks its connection). */
    private readonly connections: ConfirmingConnections,
    readonly settings: ReplicaAckSettings,
    /** The client's command timeout: WAIT may take its own timeout on top of it. */
    private readonly commandTimeoutMs: number,
  ) {}

  /**
   * Runs the commands `write` adds (on keys of the slot of `slotKey`; none: only confirms what the
   * master holds), then, when replicas are required, the barrier and WAIT. Resolves with the last
   * write command's answer; rejects with that command's error when a write command failed, with
   * ChangeNotConfirmedError when fewer replicas than required acknowledged in time (the write
   * itself went through).
   */
  async write<T>(slotKey: string, write: (pipeline: ChainableCommander) => ChainableCommander, options: ConfirmOptions<T> = {}): Promise<T> {
    try {
      return await this.attempt(slotKey, write, options);
    } catch (error) {
      // Sent to a master the slot has left (a failover the map has not caught up with): nothing
      // ran there; once more, to the master the refreshed map names.
      if (!(error instanceof Error) || !REDIRECTED.test(error.message)) throw error;
      await this.connections.refresh();
      return this.attempt(slotKey, write, options);
    }
  }

  private async attempt<T>(slotKey: string, write: (pipeline: ChainableCommander) => ChainableCommander, options: ConfirmOptions<T>): Promise<T> {
    const { replicas, timeoutMs } = this.settings;
    const connection = await this.connections.forKey(slotKey);
    const pipeline = write(connection.pipeline());
    const writes = pipeline.length;
    if (replicas > 0) {
      const barrierAt = options.barrier === false ? undefined : barrierKey(slotKey);
      if (barrierAt !== undefined) pipeline.eval(BARRIER, 1, barrierAt);
      // Its client-side timeout set first (ioredis keeps the first one set), so the command timeout
      // does not cut WAIT short: the server answers after at most timeoutMs.
      const wait = new Command('wait', [replicas, timeoutMs]);
      wait.setTimeout(timeoutMs + this.commandTimeoutMs);
      (pipeline as unknown as Pipeline).sendCommand(wait);
    }
    const sent = pipeline.length;
    const results = (await pipeline.exec()) ?? [];
    if (results.length !== sent) throw new Error(`the pipeline returned ${results.length} answers for ${sent} commands`);
    const answers = results.slice(0, replicas > 0 ? -1 : undefined);
    for (const [error] of answers) if (error) throw error;
    const answer = (writes > 0 ? answers[writes - 1]![1] : undefined) as T;
    if (replicas > 0 && (options.needed?.(answer) ?? true)) {
      const [error, acknowledged] = results[results.length - 1]!;
      const subject = options.subject ?? 'change';
      // The write went through; only its confirmation failed (a timeout, a dropped connection).
      if (error) throw new ChangeNotConfirmedError(subject, 0, replicas, error);
      if (typeof acknowledged !== 'number' || acknowledged < replicas) throw new ChangeNotConfirmedError(subject, Number(acknowledged), replicas);
    }
    return answer;
  }

  /** Confirms that the replicas hold what the master of slotKey holds now (a repeat that found its work done). */
  async confirm(slotKey: string): Promise<void> {
    if (this.settings.replicas > 0) await this.write(slotKey, (pipeline) => pipeline);
  }
}
