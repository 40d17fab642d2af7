// Reading an undici dispatch: its headers in any of undici's forms, its body as bytes, its target as
// sent (the path is never re-encoded: the gateway signs the request line it receives).
import type { RequestTarget } from './message.js';
import type { DispatchHeaders, DispatchOptions } from './dispatcher-types.js';

export type HeaderPair = readonly [string, string | readonly string[]];

function value(v: string | string[] | number): string | readonly string[] {
  return Array.isArray(v) ? v.map(String) : String(v);
}

export function headerPairs(headers: DispatchHeaders | null | undefined): HeaderPair[] {
  if (headers === null || headers === undefined) return [];
  const pairs: HeaderPair[] = [];
  if (Array.isArray(headers) && (headers.length === 0 || typeof headers[0] === 'string')) {
    const flat = headers;
    if (flat.length % 2 !== 0) throw new TypeError('a flat header array must hold name, value pairs');
    for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
    return pairs;
  }
  const entries = Symbol.iterator in headers ? (headers as Iterable<readonly [string, string | string[] | number | undefined]>) : Object.entries(headers);
  for (const [name, v] of entries) if (v !== undefined) pairs.push([name, value(v)]);
  return pairs;
}

/** The body's bytes when it is a string or bytes (or absent); undefined for a stream, which must be read first. */
export function bodyNow(body: unknown): Uint8Array | undefined {
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined;
}

function isIterable(body: object): body is AsyncIterable<unknown> | Iterable<unknown> {
  return Symbol.asyncIterator in body || Symbol.iterator in body;
}

/** Reads a stream or (async) iterable of strings and bytes, or a Blob, to the end. */
export async function readBody(body: unknown): Promise<Uint8Array> {
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  const kind = Object.prototype.toString.call(body);
  if (typeof body !== 'object' || body === null || kind === '[object FormData]' || !isIterable(body)) {
    throw new TypeError(`cannot sign a request body that is ${kind}: pass a string, bytes, a Blob or a stream of bytes`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, 'utf8'));
    else if (ArrayBuffer.isView(chunk)) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    else throw new TypeError('a request body stream must yield strings or bytes');
  }
  return Buffer.concat(chunks);
}

/** The origin the dispatch goes to: its own (an Agent's, fetch's), else the interceptor's option. */
export function dispatchOrigin(options: DispatchOptions, fallbackOrigin: string | URL | undefined): URL {
  const origin = options.origin ?? fallbackOrigin;
  if (origin === undefined) throw new TypeError('the dispatch has no origin (a Client or Pool): pass `origin` to signingInterceptor');
  return new URL(origin);
}

/** The URL the dispatch requests (joined as text: a path of "//host/x" stays a path). */
export function dispatchUrl(options: DispatchOptions, fallbackOrigin: string | URL | undefined): URL {
  return new URL(`${dispatchOrigin(options, fallbackOrigin).origin}${options.path}`);
}

/** Method, Host (the header if set, else the origin's host) and path as undici will send them. */
export function dispatchTarget(options: DispatchOptions, pairs: readonly HeaderPair[], fallbackOrigin: string | URL | undefined): RequestTarget {
  const url = dispatchOrigin(options, fallbackOrigin);
  const host = pairs.find(([name]) => name.toLowerCase() === 'host')?.[1];
  const question = options.path.indexOf('?');
  return {
    method: options.method.toUpperCase(),
    authority: typeof host === 'string' ? host.trim().toLowerCase() : url.host,
    scheme: url.protocol.replace(/:$/, ''),
    path: question < 0 ? options.path : options.path.slice(0, question),
    query: question < 0 ? null : options.path.slice(question + 1),
  };
}
