// Used nonces across a failover, without a replica round trip per signed request. A nonce is
// consumed on the master and replicated after the answer: a replica promoted before it received the
// nonce does not know it, and the signed request, sent again, would pass. The script that consumes
// a nonce also returns the replication ids of the master that ran it. A master that carries on the
// history of another id keeps that id as master_replid2 and draws a new one: a promoted replica,
// and also a master restarted from an RDB snapshot holding replication state (a restart from the
// append-only file draws a new id without a second one). The first time any gateway meets such a
// master, it records when (in the
// store, shared by every gateway and kept across restarts: the fence); from then on a signature
// created before the fence plus the allowed clock skew is refused (503 signature_predates_failover,
// Retry-After): every nonce the new master may lack belongs to such a signature. That lasts while
// such a signature can be within the window; a client that signs each request as it sends it is
// refused for about the skew.
//
// What it leaves: a gateway that keeps writing to the old master after the others met the new one
// (a partition the sentinels or the Cluster resolved without it) consumes nonces the fence does not
// cover, until it too moves; `min-replicas-to-write 1` with `min-replicas-max-lag` bounds how long an
// isolated master takes writes. GATEWAY_REDIS_NONCE_FAILOVER=wait closes that too, per request.
import { CLOCK_SKEW_SECONDS } from '../signing/signature-window.js';

/** What the consuming script says of the master that ran it. */
export interface MasterIdentity {
  /** master_replid: drawn anew when the server starts and when it is promoted. */
  readonly replid: string;
  /** True when master_replid2 is set: the master carries on another's history (promoted, or restarted from an RDB snapshot). */
  readonly continued: boolean;
}

/** A signature created before the fence of a master that took over (plus the clock skew). */
export class SignaturePredatesFailoverError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`signature created before the credential store's failover; retry after ${retryAfterSeconds} s`);
    this.name = 'SignaturePredatesFailoverError';
  }
}

/** Gateways' clocks differ a little: a fence recorded by one is moved this much later for all. */
export const GATEWAY_CLOCK_MARGIN_MS = 1000;
/** Fences kept in the store: the newest ones (a fence matters for one signature window after it). */
export const KEPT_FENCES = 64;

// KEYS: the fence hash (replid -> epoch ms of the first sighting). ARGV: replid, now (ms), fences
// kept. Records now unless a fence is recorded, drops the oldest beyond the kept count, and returns
// the fence.
export const RECORD_FENCE = `
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
local fence = redis.call('HGET', KEYS[1], ARGV[1])
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[3]) then
  local all = redis.call('HGETALL', KEYS[1])
  local oldest, at = nil, nil
  for i = 1, #all, 2 do
    if all[i] ~= ARGV[1] and (at == nil or tonumber(all[i + 1]) < at) then oldest, at = all[i], tonumber(all[i + 1]) end
  end
  if oldest then redis.call('HDEL', KEYS[1], oldest) end
end
return fence`;

/** The identity of a master from the master_replid and master_replid2 the consuming script returns. */
export function masterIdentityOf(replid: unknown, replid2: unknown): MasterIdentity {
  if (typeof replid !== 'string' || !/^[0-9a-f]{40}$/.test(replid)) throw new Error('the nonce script returned no master_replid');
  return { replid, continued: typeof replid2 === 'string' && /^[0-9a-f]{40}$/.test(replid2) && !/^0+$/.test(replid2) };
}

export class FailoverFence {
  /** The fence of each master met that took over (epoch ms), once read or recorded. */
  private readonly fences = new Map<string, Promise<number>>();

  constructor(
    /** Records the first sighting (now) unless one is recorded; resolves with the recorded one. */
    private readonly record: (replid: string, nowMs: number) => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Throws SignaturePredatesFailoverError when `createdSeconds` is not after the fence of the
   * master plus the clock skew; a master with no history but its own has no fence.
   */
  async check(master: MasterIdentity, createdSeconds: number): Promise<void> {
    if (!master.continued) return;
    const fenceSeconds = Math.floor((await this.fenceOf(master.replid)) / 1000 + GATEWAY_CLOCK_MARGIN_MS / 1000) + CLOCK_SKEW_SECONDS;
    // A signature accepted by the old master before the fence had created <= fence + skew (any
    // later is refused as not yet valid): nothing up to that may pass.
    if (createdSeconds <= fenceSeconds) throw new SignaturePredatesFailoverError(Math.max(1, fenceSeconds + 1 - Math.floor(this.now() / 1000)));
  }

  private fenceOf(replid: string): Promise<number> {
    let fence = this.fences.get(replid);
    if (!fence) {
      fence = this.record(replid, this.now());
      this.fences.set(replid, fence);
      // A failed read is asked again by the next request (which fails closed meanwhile).
      fence.catch(() => this.fences.delete(replid));
    }
    return fence;
  }
}
