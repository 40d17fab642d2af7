// Requests Node's HTTP parser refuses before Fastify sees them (malformed HTTP, headers too large,
// a request not received within the request timeout). Fastify's default handler logs the raw
// request bytes (bearer tokens, client secrets) and answers with its own body; this one answers
// with the catalog's JSON body and logs the parser's code only.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ERRORS, type ErrorCode } from '../errors.js';
import { closeGracefully, isClosing } from './lingering-close.js';

interface ParserError extends Error {
  code?: string;
}

function codeFor(error: ParserError): ErrorCode {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'bad_request';
}

/** Fastify calls this bound to the instance whose server saw the error. */
export function clientErrorHandler(this: FastifyInstance, error: ParserError, socket: Socket): void {
  refuseMalformedRequest(this.log, error, socket);
}

/** A server's 'clientError' listener: answers with the catalog's body and logs the parser's code only. */
export function refuseMalformedRequest(log: FastifyBaseLogger, error: ParserError, socket: Socket): void {
  // Input still arriving on a connection being closed makes the parser fail again: expected, ignored.
  if (error.code === 'ECONNRESET' || socket.destroyed || isClosing(socket)) return;
  const code = codeFor(error);
  const requestId = randomUUID();
  log.info({ request_id: requestId, code, parser_error: error.code ?? null }, 'malformed or incomplete request refused');
  // Answer only when no response has started on this socket: never corrupt one in flight.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({ error: code, message, request_id: requestId });
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`;
  closeGracefully(socket, head + body);
}
