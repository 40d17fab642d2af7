/** Raised by a store when its backend cannot be reached; the pipeline answers 503 and forwards nothing. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('credential store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}
