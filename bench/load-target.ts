// What a load generator sends and what it reports, whichever generator (wrk or autocannon) runs.

export interface LoadTarget {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Per-request headers, each set used once (pre-signed requests with fresh nonces), made before
   * the run so that the generator does no signing while it measures.
   */
  headerSets?: Record<string, string>[];
}

export interface LoadResult {
  /** Responses received in the run. */
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with status 400 or above (wrk counts these; so does autocannon's non2xx, plus 3xx). */
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  /** Requests sent after every header set was used once (they repeat a set, so a replay: 401). */
  poolExhausted: number;
}

export interface LoadGenerator {
  /** As printed in the table's heading. */
  readonly name: string;
  run(target: LoadTarget, options: { seconds: number; connections: number }): Promise<LoadResult>;
}
