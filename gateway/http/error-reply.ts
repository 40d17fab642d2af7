// Turns anything thrown in a handler into the catalog's JSON error body: error, message and
// request_id everywhere; OAuth endpoints add error_description (RFC 6749 section 5.2).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError, type ErrorCode } from '../errors.js';
import { SignaturePredatesFailoverError } from '../store/failover-fence.js';
import { ChangeNotConfirmedError } from '../store/replica-ack.js';
import { StoreUnavailableError } from '../store/types.js';
import { closingUnreadBody } from './lingering-close.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error code this request was answered with, for metrics and logs. */
    errorCode?: ErrorCode;
  }
  interface FastifyContextConfig {
    /** 'oauth' for RFC 6749 endpoints: the body also carries error_description. */
    errorStyle?: 'oauth';
  }
}

/** The 400 codes RFC 6749 section 5.2 defines, and RFC 9449 section 5 adds; any other 400 is invalid_request there. */
const OAUTH_400_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_request',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_dpop_proof',
  'use_dpop_nonce',
]);

export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  if (error instanceof StoreUnavailableError) return new GatewayError('store_unavailable', undefined, { cause: error });
  if (error instanceof ChangeNotConfirmedError) {
    // A signed request whose nonce the replicas did not confirm was not forwarded; an admin change may have been applied.
    const message =
      error.subject === 'nonce'
        ? 'The nonce of this signed request was not confirmed on a Redis replica in time; the request was not forwarded: sign it again and retry.'
        : undefined;
    return new GatewayError('change_not_confirmed', message, { cause: error, headers: { 'retry-after': '1' } });
  }
  if (error instanceof SignaturePredatesFailoverError)
    return new GatewayError('signature_predates_failover', undefined, { cause: error, headers: { 'retry-after': String(error.retryAfterSeconds) } });
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new GatewayError('body_too_large');
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new GatewayError('bad_request', `The request is malformed: ${fastifyError.message ?? 'unreadable'}.`);
  }
  return new GatewayError('internal_error', undefined, { cause: error });
}

/** Answers with the error; `status` only where a caller cannot pass the error's own (nginx auth_request). */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: GatewayError, status = error.status): FastifyReply {
  const oauth = reply.routeOptions.config?.errorStyle === 'oauth';
  // OAuth endpoints answer with RFC 6749 codes only, also for bodies Fastify could not parse or an
  // unreadable X-Forwarded-For (the message says which); and none of their responses may be
  // cached, including those that fail before the handler runs.
  if (oauth && error.status === 400 && !OAUTH_400_CODES.has(error.code)) error = new GatewayError('invalid_request', error.message, { cause: error });
  if (oauth) reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  request.errorCode = error.code;
  // A refusal before the body was read leaves it unread: close the connection rather than read on.
  if (closingUnreadBody(request.raw)) reply.header('connection', 'close');
  return reply
    .code(status)
    .headers(error.headers)
    .send(errorBody(error, String(request.id), oauth));
}

/** The catalog's JSON error body: error, message and request_id, then the field and details; OAuth endpoints add error_description. */
export function errorBody(error: GatewayError, requestId: string, oauth = false): Record<string, string> {
  const body: Record<string, string> = oauth
    ? { error: error.code, message: error.message, error_description: error.message, request_id: requestId }
    : { error: error.code, message: error.message, request_id: requestId };
  if (error.field) body.field = error.field;
  for (const [name, value] of Object.entries(error.details)) if (!Object.hasOwn(body, name)) body[name] = value;
  return body;
}

/**
 * Whether a failure is logged with its stack: a 5xx other than the store's outage (logged once, when
 * it begins and ends: gateway/ops/store-transitions.ts) and the refusals after a failover (many
 * requests for a few seconds; the request's own completion line still shows its 503).
 */
export function loggedAsFailure(error: GatewayError): boolean {
  return error.status >= 500 && error.code !== 'store_unavailable' && error.code !== 'signature_predates_failover';
}

export function installErrorReplies(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error);
    if (loggedAsFailure(gatewayError)) request.log.error({ err: error, code: gatewayError.code }, 'request failed');
    return sendError(request, reply, gatewayError);
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new GatewayError('route_not_found')));
}
