// Reads the raw request body of a signed route into memory, up to the configured limit, so its
// digest can be checked and exactly those bytes forwarded. It runs only after the signature has
// verified and the request is authorized: an unauthenticated client never gets a body buffered.
// Every byte held counts against the gateway-wide body budget (503 when it is spent).
import type { Readable } from 'node:stream';
import { GatewayError } from '../../../errors.js';
import type { BodyHold } from '../../../http/body-budget.js';
import type { BodySource } from '../../body-source.js';
import type { OriginalRequest } from '../../original-request.js';

function tooLarge(limit: number): GatewayError {
  return new GatewayError('body_too_large', `The request body is larger than ${limit} bytes.`);
}

/** Refuses a declared body over the limit from the headers alone. */
export function checkDeclaredLength(original: OriginalRequest, limit: number): void {
  if (original.declaredLength > limit) throw tooLarge(limit);
}

function readStream(stream: Readable, limit: number, declared: number, hold: BodyHold): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A declared length was taken from the budget up front; a chunked body is taken as it arrives.
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('aborted', onAborted);
    };
    // On a refusal, stop listening and leave the rest unread: the error reply closes the connection.
    const fail = (error: GatewayError) => {
      cleanup();
      stream.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return fail(tooLarge(limit));
      if (declared === 0) {
        try {
          hold.take(chunk.length);
        } catch (error) {
          return fail(error as GatewayError);
        }
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => fail(new GatewayError('bad_request', 'The request body could not be read.', { cause: error }));
    const onAborted = () => fail(new GatewayError('bad_request', 'The client stopped sending the request body.'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('aborted', onAborted);
  });
}

/** The body bytes, or undefined when the request has no body to forward (GET, HEAD, empty). */
export async function readRequestBody(source: BodySource, original: OriginalRequest, limit: number, hold: BodyHold): Promise<Buffer | undefined> {
  checkDeclaredLength(original, limit);
  const body = source.payload();
  if (body === undefined) return undefined;
  if (Buffer.isBuffer(body)) {
    if (body.length > limit) throw tooLarge(limit);
    return body;
  }
  const declared = original.declaredLength;
  if (declared > 0) hold.take(declared);
  return readStream(body, limit, declared, hold);
}
