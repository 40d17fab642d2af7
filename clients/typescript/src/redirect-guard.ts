// The interceptor's hold on redirects. It wraps the handler of each signed dispatch: a redirect
// answer reaches whoever would follow it (fetch, undici's redirect interceptor) only when the
// policy allows it; otherwise the request fails with RedirectRefusedError before anything is sent
// to the Location. Whatever follows dispatches the next hop through the interceptor again, which
// signs it for its own URL. Both handler interfaces are served: undici 7's (controller) and the
// earlier one (onConnect, onHeaders), which the undici inside Node 20 uses.
import type { DispatchHandler } from './dispatcher-types.js';
import type { RedirectRefusedError } from './errors.js';

/** The refusal for a response, or undefined when it is not a redirect or may be followed. */
export type RedirectCheck = (statusCode: number, location: string) => RedirectRefusedError | undefined;

/** What undici's redirect interceptor follows (fetch follows the same less 300). */
const REDIRECTS = new Set([300, 301, 302, 303, 307, 308]);

function checked(check: RedirectCheck, statusCode: number, location: string | undefined): RedirectRefusedError | undefined {
  return REDIRECTS.has(statusCode) && location !== undefined ? check(statusCode, location) : undefined;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function rawLocation(rawHeaders: readonly (Uint8Array | string)[]): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (String(Buffer.from(rawHeaders[i]!)).toLowerCase() === 'location') return Buffer.from(rawHeaders[i + 1]!).toString('latin1');
  }
  return undefined;
}

function modernGuard(handler: DispatchHandler, check: RedirectCheck): DispatchHandler {
  let refused = false;
  return {
    onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart(controller, statusCode, headers, statusMessage) {
      const refusal = checked(check, statusCode, first(headers.location));
      if (refusal === undefined) return handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
      refused = true;
      // undici reports the abort to onResponseError, which passes it on.
      controller.abort(refusal);
    },
    onResponseData: (controller, chunk) => (refused ? undefined : handler.onResponseData?.(controller, chunk)),
    onResponseEnd: (controller, trailers) => (refused ? undefined : handler.onResponseEnd?.(controller, trailers)),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
}

function legacyGuard(handler: DispatchHandler, check: RedirectCheck): DispatchHandler {
  let refused = false;
  let abort: ((reason?: Error) => void) | undefined;
  return {
    onConnect(abortRequest, context) {
      abort = abortRequest;
      return handler.onConnect?.(abortRequest, context);
    },
    onHeaders(statusCode, rawHeaders, resume, statusText) {
      const refusal = checked(check, statusCode, rawLocation(rawHeaders));
      if (refusal === undefined) return handler.onHeaders?.(statusCode, rawHeaders, resume, statusText);
      refused = true;
      // Without an abort function (never with undici), throwing fails the request just the same.
      if (abort === undefined) throw refusal;
      abort(refusal);
      return false;
    },
    onData: (chunk) => (refused ? false : handler.onData?.(chunk)),
    onComplete: (trailers) => (refused ? undefined : handler.onComplete?.(trailers)),
    onError: (error) => handler.onError?.(error),
    onUpgrade: (statusCode, rawHeaders, socket) => handler.onUpgrade?.(statusCode, rawHeaders, socket),
    onBodySent: (chunk) => handler.onBodySent?.(chunk),
    onRequestSent: () => handler.onRequestSent?.(),
    onResponseStarted: () => handler.onResponseStarted?.(),
  };
}

/** The handler with redirects checked; undici 7 tells the interfaces apart by onRequestStart. */
export function guardRedirects(handler: DispatchHandler, check: RedirectCheck): DispatchHandler {
  return typeof handler.onRequestStart === 'function' || typeof handler.onResponseStart === 'function'
    ? modernGuard(handler, check)
    : legacyGuard(handler, check);
}
