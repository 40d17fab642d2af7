// Reads the raw request body of a signed route into memory, up to the configured limit, so its
// digest can be checked and exactly those bytes forwarded. On signed routes the proxy's content
// type parser hands over the unread payload stream (request.body).
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors.js';

function tooLarge(limit: number): GatewayError {
  return new GatewayError('body_too_large', `The request body is larger than ${limit} bytes.`);
}

function readStream(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    // Stop listening but leave the stream open: Node discards the rest once the 413 is sent.
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new GatewayError('bad_request', 'The request body could not be read.', { cause: error }));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

/** The body bytes, or undefined when the request has no body to forward (GET, HEAD, empty). */
export async function readRequestBody(request: FastifyRequest, limit: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const body = request.body as unknown;
  if (body === undefined || body === null) return undefined;
  if (Buffer.isBuffer(body)) {
    if (body.length > limit) throw tooLarge(limit);
    return body;
  }
  if (typeof (body as Readable).on === 'function') return readStream(body as Readable, limit);
  throw new GatewayError('internal_error', 'the signed route received a parsed body instead of the raw payload');
}
