// What the tests of a real edge proxy (nginx, Caddy) in front of the decision listener share: the
// edge's origins, the API behind it, the two protocols a client reaches it with, and the assertion
// that a refusal is the gateway's and the API never saw the request.
import type { Test } from 'tap';
import type { EchoUpstream } from '../../gateway/examples/echo-upstream.js';
import type { TestGateway } from '../helpers/gateway.js';
import { signedHeaders, type TestServiceAccount } from '../helpers/signing.js';
import { send, sendH2, type Sent } from './send.js';

export interface Edge {
  tg: TestGateway;
  /** The edge's HTTP/1.1 and HTTP/2 (h2c, prior knowledge) origins; one origin where the edge serves both. */
  url: string;
  h2Url: string;
  /** The API behind the edge: the gateway's banking echo server, which answers with what it received. */
  api: EchoUpstream;
}

/** How a test client reaches the edge: HTTP/1.1, or HTTP/2 with a Content-Length on every body. */
export interface Protocol {
  name: string;
  send(edge: Edge, path: string, method: string, headers: Record<string, string | string[]>, body?: string): Promise<Sent>;
}

export const PROTOCOLS: readonly Protocol[] = [
  { name: 'HTTP/1.1', send: (edge, path, method, headers, body) => send(`${edge.url}${path}`, method, headers, body) },
  { name: 'HTTP/2', send: (edge, path, method, headers, body) => sendH2(`${edge.h2Url}${path}`, method, headers, body) },
];

/** The request the upstream received last, as it echoed it. */
export function lastReceived(edge: Edge) {
  return edge.api.received.at(-1)!;
}

/** Asserts the edge's refusal: status, the gateway's code in body and header, and an untouched upstream. */
export async function refused(t: Test, edge: Edge, exchange: () => Promise<Sent>, status: number, code: string): Promise<Sent> {
  const before = edge.api.received.length + edge.tg.upstreams.public.received.length;
  const response = await exchange();
  t.equal(response.status, status, `${code}: ${response.body}`);
  t.equal(response.headers['x-gateway-error'], code, `${code}: x-gateway-error`);
  t.match(response.headers['content-type'], /^application\/json/);
  t.equal((JSON.parse(response.body) as { error: string }).error, code, `${code}: body`);
  t.equal(edge.api.received.length + edge.tg.upstreams.public.received.length, before, `${code}: the upstream was not contacted`);
  return response;
}

export function signed(sa: TestServiceAccount, method: string, url: string, body?: string): Record<string, string | string[]> {
  return signedHeaders(sa, { method, url, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });
}
