// Orders between the primary and its workers (node:cluster IPC). Orders travel as messages rather
// than signals: Ctrl-C signals the whole process group, and a worker must not count it twice
// (a second stop order means "stop at once").
export type Order = 'reload' | 'drain' | 'stop';

export interface ProcessMessage {
  /** A worker reports `ready` once it listens; the primary sends the orders. */
  readonly gateway: Order | 'ready';
}

export function isProcessMessage(value: unknown): value is ProcessMessage {
  return typeof value === 'object' && value !== null && typeof (value as { gateway?: unknown }).gateway === 'string';
}

/** In a worker: tells the primary that both listeners accept connections. */
export function reportReady(): void {
  process.send?.({ gateway: 'ready' } satisfies ProcessMessage);
}
