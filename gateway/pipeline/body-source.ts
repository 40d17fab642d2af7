// Where a request's body comes from, for the one stage that reads it (admit, on signed routes). The
// exchange the request arrived on lends its unread payload and its lifetime; the stages see this,
// never the exchange.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';

export interface BodySource {
  /** The unread payload (a stream, or bytes already received), or undefined when the exchange carries no body. */
  payload(): Readable | Buffer | undefined;
  /** Calls `release` once the exchange is over: the bytes held for the body are given back then. */
  onFinished(release: () => void): void;
}

/** A request without a body (a stage called on its own, or an exchange that frames none). */
export const NO_BODY: BodySource = { payload: () => undefined, onFinished: () => {} };

/** Whether the exchange's own framing says a body follows (Content-Length above zero, or Transfer-Encoding). */
function framesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isReadable(body: unknown): body is Readable {
  return typeof (body as Readable).on === 'function';
}

/**
 * The body of a Fastify exchange whose content type parser hands over the unread payload stream
 * (request.body). Where Fastify parses no body (a GET, a HEAD, a DELETE without Content-Type:
 * Traefik's forwardBody and Envoy ask with GET), it is the raw stream when the exchange frames one:
 * a body is checked whatever the method that carried it.
 */
export function exchangeBody(request: FastifyRequest, reply: FastifyReply): BodySource {
  return {
    payload() {
      const body = request.body;
      if (body === undefined || body === null) return framesBody(request.headers) ? request.raw : undefined;
      if (Buffer.isBuffer(body) || isReadable(body)) return body;
      throw new GatewayError('internal_error', 'the signed route received a parsed body instead of the raw payload');
    },
    onFinished(release) {
      reply.raw.once('close', release);
    },
  };
}

/** The body of a plain node:http exchange (the decision listener): the message itself when it frames one, whatever the method. */
export function messageBody(message: IncomingMessage, response: ServerResponse): BodySource {
  return {
    payload: () => (framesBody(message.headers) ? message : undefined),
    onFinished(release) {
      response.once('close', release);
    },
  };
}
