// A store call that failed because one Redis Cluster master does not answer (or its breaker is
// open): a 503 like any StoreUnavailableError, but one that says nothing about the other masters,
// so the store-wide breaker does not count it (node-breakers.ts counts it for that node).
import { StoreUnavailableError } from './store-unavailable-error.js';

export class NodeUnavailableError extends StoreUnavailableError {
  constructor(
    /** The master, as host:port. */
    readonly node: string,
    cause: unknown,
  ) {
    super(cause);
    this.name = 'NodeUnavailableError';
  }
}

/**
 * Whether a failed command says the node is unavailable (a timeout, a lost connection, a cluster
 * that refuses the slot) rather than answering (a reply such as NOSCRIPT or WRONGTYPE is the node
 * working).
 */
export function isUnavailability(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'ReplyError') return true;
  return /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|BUSY|NOREPLICAS|MOVED|ASK)\b/.test(error.message);
}
