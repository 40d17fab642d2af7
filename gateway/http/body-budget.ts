// One budget for the request body bytes the gateway holds in memory across all requests at once
// (signed banking bodies, OAuth forms, admin JSON). Bytes are taken as they arrive, before the
// client has proven who it is, so the budget is what keeps many slow or large uploads from
// growing the process: when it is spent the request gets 503 with Retry-After, and the budget
// never grows past its capacity. A request's bytes are given back when its response is done.
import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest, RequestPayload, preParsingHookHandler } from 'fastify';
import { GatewayError } from '../errors.js';

export class BodyBudget {
  private held = 0;

  constructor(readonly capacity: number) {}

  /** Bytes currently held by requests in flight. */
  get used(): number {
    return this.held;
  }

  /** A per-request account of what it holds; everything is given back when the reply closes. */
  holdFor(reply: FastifyReply): BodyHold {
    const hold = new BodyHold(this);
    reply.raw.once('close', () => hold.releaseAll());
    return hold;
  }

  /** Takes bytes when the capacity allows; false otherwise (nothing is taken). */
  tryTake(bytes: number): boolean {
    if (this.held + bytes > this.capacity) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

export class BodyHold {
  private taken = 0;

  constructor(private readonly budget: BodyBudget) {}

  /** Takes more bytes for this request, or throws 503 server_busy. */
  take(bytes: number): void {
    if (!this.budget.tryTake(bytes)) {
      throw new GatewayError('server_busy', 'The gateway is holding as many request bodies as it may; retry shortly.', { headers: { 'retry-after': '1' } });
    }
    this.taken += bytes;
  }

  releaseAll(): void {
    this.budget.give(this.taken);
    this.taken = 0;
  }
}

/**
 * A preParsing hook for routes whose body Fastify parses (OAuth forms, admin JSON): the bytes count
 * against the budget while they are held. A declared length over the route's limit is left to
 * Fastify's 413; a chunked body is counted as it arrives.
 */
export function countBodyAgainst(budget: BodyBudget): preParsingHookHandler {
  // A callback hook (no promise per request); a refusal (the budget is spent) is passed to done.
  return (request, reply, payload, done) => {
    try {
      done(null, budgetedPayload(budget, request, reply, payload));
    } catch (error) {
      done(error as Error);
    }
  };
}

function budgetedPayload(budget: BodyBudget, request: FastifyRequest, reply: FastifyReply, payload: RequestPayload): RequestPayload {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > 0) {
    if (declared <= request.routeOptions.bodyLimit) budget.holdFor(reply).take(declared);
    return payload;
  }
  if (request.headers['transfer-encoding'] === undefined) return payload;
  const hold = budget.holdFor(reply);
  return payload.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        try {
          hold.take(chunk.length);
          callback(null, chunk);
        } catch (error) {
          callback(error as Error);
        }
      },
    }),
  );
}
