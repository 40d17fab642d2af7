// Stage 7 for a message_signing route: the upstream's answer is held whole (its Content-Digest goes
// in the signed headers, which are sent before the body), signed (response-signature.ts) and then
// written to the client. Held bytes are bounded per response (max_signed_response_bytes, checked
// against a declared length before a byte is read) and count against the gateway-wide body budget;
// past either the client gets 502 upstream_response_too_large or 503, never an unsigned answer.
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { contentDigest } from '@access-gateway/signing';
import { GatewayError } from '../errors.js';
import { BodyHold } from '../http/body-budget.js';
import { sendError } from '../http/error-reply.js';
import { signResponse, type AnsweredRequest } from '../signing/response-signature.js';
import { downstreamHeaderList } from './mutate.js';
import type { ResponseSigning } from './response-signing.js';
import type { ResponseFields } from './verdict.js';

/** Fields of the upstream's answer the gateway's signature replaces: one signature, over a digest of the bytes sent. */
const REPLACED = new Set(['content-digest', 'signature', 'signature-input']);
/** Statuses whose response has no content, whatever the headers say (RFC 9110 6.4.1). */
const NO_CONTENT = new Set([204, 304]);

function tooLarge(limit: number): GatewayError {
  return new GatewayError('upstream_response_too_large', `The upstream's response is larger than the ${limit} bytes the gateway signs.`);
}

export class SignedResponseRelay implements Dispatcher.DispatchHandler {
  private abortUpstream: ((error?: Error) => void) | undefined;
  private status = 0;
  private headers: string[] = [];
  private contentType: string | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private finished = false;
  private readonly hold: BodyHold;
  private readonly response: ServerResponse;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly fields: ResponseFields,
    private readonly answered: AnsweredRequest,
    private readonly signing: ResponseSigning,
    private readonly onUpstreamError: (error: Error) => GatewayError,
    private readonly done: () => void,
  ) {
    this.response = reply.raw;
    this.hold = new BodyHold(signing.budget);
    this.response.once('close', () => {
      this.hold.releaseAll();
      if (!this.response.writableFinished) this.abortUpstream?.();
    });
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.response.destroyed) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true;
    this.status = statusCode;
    const list = downstreamHeaderList(rawHeaders, this.fields);
    const types: string[] = [];
    for (let i = 0; i < list.length; i += 2) {
      const name = list[i]!;
      if (name === 'content-length' && Number(list[i + 1]) > this.signing.maxBytes) return this.fail(tooLarge(this.signing.maxBytes));
      if (name === 'content-type') types.push(list[i + 1]!.trim());
      if (!REPLACED.has(name)) this.headers.push(name, list[i + 1]!);
    }
    this.contentType = types.length === 0 ? undefined : types.join(', ');
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.finished) return false;
    this.size += chunk.length;
    if (this.size > this.signing.maxBytes) return this.fail(tooLarge(this.signing.maxBytes));
    try {
      this.hold.take(chunk.length);
    } catch (error) {
      return this.fail(error as GatewayError);
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.response.destroyed) return this.done();
    const body = Buffer.concat(this.chunks, this.size);
    const hasContent = body.length > 0 && !NO_CONTENT.has(this.status) && this.request.method !== 'HEAD';
    const digest = hasContent ? contentDigest(body) : undefined;
    const signature = signResponse(
      { status: this.status, contentType: this.contentType, contentDigest: digest },
      this.answered,
      this.signing.key(),
      Math.floor(Date.now() / 1000),
    );
    const headers = [...this.headers];
    if (digest !== undefined) headers.push('content-digest', digest);
    headers.push('signature-input', signature['signature-input']!, 'signature', signature.signature!);
    this.reply.hijack();
    this.response.writeHead(this.status, headers);
    this.response.end(hasContent ? body : undefined);
    this.done();
  }

  onError(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    if (!this.response.destroyed) {
      this.request.log.warn({ code: (error as { code?: string }).code }, 'upstream request failed');
      sendError(this.request, this.reply, this.onUpstreamError(error));
    }
    this.done();
  }

  /** Stops the upstream exchange and answers the refusal instead; nothing was sent yet. */
  private fail(error: GatewayError): false {
    this.finished = true;
    this.abortUpstream?.();
    this.chunks.length = 0;
    this.hold.releaseAll();
    if (!this.response.destroyed) {
      if (error.code === 'upstream_response_too_large') this.request.log.warn({ limit: this.signing.maxBytes }, 'upstream response too large to sign');
      sendError(this.request, this.reply, error);
    }
    this.done();
    return false;
  }
}
