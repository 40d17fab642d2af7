// The part of undici's Dispatcher API the signing interceptor reads, declared here so the package
// depends on neither undici nor its types. Each undici version types its options differently (the
// body's stream and FormData types are its own), so the interceptor is generic over the dispatch
// function it wraps: compose() of any version accepts it (tested against undici 7's types).

export type DispatchHeaderValue = string | string[] | number | undefined;

/** Every form undici accepts: an object, a flat [name, value, ...] array, or [name, value] pairs. */
export type DispatchHeaders = Record<string, DispatchHeaderValue> | string[] | Iterable<readonly [string, DispatchHeaderValue]>;

export interface DispatchOptions {
  /** Set by an Agent (and fetch); a Client or Pool leaves it out. */
  origin?: string | URL;
  /** Path and query exactly as they go on the request line. */
  path: string;
  method: string;
  headers?: DispatchHeaders | null;
  /** A string or bytes, or a stream / async iterable (fetch always passes one), read whole before signing. */
  body?: unknown;
  /** undici 6's Agent follows redirects when this is above 0; the interceptor sends 0. */
  maxRedirections?: number;
}

/** Response headers as undici 7 hands them to a handler. */
export type DispatchResponseHeaders = Record<string, string | string[] | undefined>;

export interface DispatchController {
  abort(reason: Error): void;
}

export interface DispatchHandler {
  /** undici 7 handlers. */
  onRequestStart?(controller: DispatchController, context: unknown): void;
  onRequestUpgrade?(controller: DispatchController, statusCode: number, headers: DispatchResponseHeaders, socket: unknown): void;
  onResponseStart?(controller: DispatchController, statusCode: number, headers: DispatchResponseHeaders, statusMessage?: string): void;
  onResponseData?(controller: DispatchController, chunk: Uint8Array): void;
  onResponseEnd?(controller: DispatchController, trailers: DispatchResponseHeaders): void;
  onResponseError?(controller: unknown, error: Error): void;
  /** Earlier handlers (e.g. the undici inside Node 20): raw headers are [name, value, ...]. */
  onConnect?(abort: (reason?: Error) => void, context?: unknown): void;
  onHeaders?(statusCode: number, rawHeaders: readonly (Uint8Array | string)[], resume: () => void, statusText?: string): boolean | void;
  onData?(chunk: Uint8Array): boolean | void;
  onComplete?(trailers: unknown): void;
  onError?(error: Error): void;
  onUpgrade?(statusCode: number, rawHeaders: unknown, socket: unknown): void;
  onBodySent?(chunk: unknown): void;
  onRequestSent?(): void;
  onResponseStarted?(): void;
}

/** The interceptor's view of the dispatch it wraps and of the one it returns. */
export type Dispatch = (options: DispatchOptions, handler: DispatchHandler) => boolean;

/** Any undici version's dispatch function (parameters of type never: every two-argument function is one). */
export type AnyDispatch = (options: never, handler: never) => boolean;

/** What undici's Dispatcher.compose() takes: a function from the next dispatch to one of the same type. */
export type DispatchInterceptor = <D extends AnyDispatch>(dispatch: D) => D;
