// Two real HTTP servers on 127.0.0.1, for the clients' redirect tests: a redirector, whose answers
// point at itself or at a landing server on another port (another origin), and the landing server.
// Both record every request as it arrived, with its raw header lines and body, so a test can show
// what reached the other origin and check a signature against the URL it was sent to.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Test } from 'tap';
import { checkContentDigest, headerFieldsFromRaw, verifyRequestSignature, type SignatureParameters } from '../../gateway/signing/index.js';
import { serveOnLoopback } from '../helpers/loopback-server.js';

export interface Received {
  method: string;
  /** Path and query as they came on the request line. */
  url: string;
  rawHeaders: string[];
  body: string;
}

export interface RecordingServer {
  origin: string;
  received: Received[];
}

type Answer = (request: Received, response: ServerResponse) => void;

async function recordingServer(t: Test, answer: Answer): Promise<RecordingServer> {
  const received: Received[] = [];
  const origin = await serveOnLoopback(t, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const got = { method: request.method!, url: request.url!, rawHeaders: request.rawHeaders, body: Buffer.concat(chunks).toString('utf8') };
      received.push(got);
      answer(got, response);
    });
  });
  return { origin, received };
}

function landed(request: Received, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ landed: request.url, method: request.method }));
}

/** Answers 200 with what reached it. */
export function startLanding(t: Test): Promise<RecordingServer> {
  return recordingServer(t, landed);
}

/**
 * /<status>/away redirects to the landing server's /landing/<status>, /<status>/here to its own
 * /landing/<status> (a relative Location), both with the query kept; /loop to itself for ever;
 * /landing/... answers 200.
 */
export function startRedirector(t: Test, landing: RecordingServer): Promise<RecordingServer> {
  return recordingServer(t, (request, response) => {
    const [path, query] = request.url.split('?');
    const [, first, second] = path!.split('/');
    if (first === 'landing') return landed(request, response);
    if (first === 'loop') return void response.writeHead(307, { location: '/loop' }).end();
    const status = Number(first);
    // The request's own query goes along, so that a test can tell its hops apart.
    const from = `?from=${second === 'away' ? 'away' : 'here'}${query ? `&${query}` : ''}`;
    const location = second === 'away' ? `${landing.origin}/landing/${status}${from}` : `/landing/${status}${from}`;
    response.writeHead(status, { location, 'content-type': 'text/plain' }).end(`see ${location}`);
  });
}

/** The header lines a signed request carries, found in what a server received. */
export function signingHeadersIn(request: Received): string[] {
  const names = new Set(['x-access-id', 'signature', 'signature-input', 'content-digest']);
  return request.rawHeaders.filter((name, i) => i % 2 === 0 && names.has(name.toLowerCase()));
}

/** Verifies a received request's signature for the URL it reached, and its Content-Digest; returns its parameters. */
export function verifyReceived(request: Received, privateKey: KeyObject | string, accessId: string): SignatureParameters {
  const headers = headerFieldsFromRaw(request.rawHeaders);
  const question = request.url.indexOf('?');
  const signable = {
    method: request.method,
    authority: headers.get('host')![0]!.trim().toLowerCase(),
    path: question < 0 ? request.url : request.url.slice(0, question),
    query: question < 0 ? null : request.url.slice(question + 1),
    headers,
  };
  const { signature } = verifyRequestSignature(signable, { keyid: accessId, publicKey: createPublicKey(privateKey) });
  if (headers.get('x-access-id')?.join() !== accessId) throw new Error('the x-access-id header is not the Access ID');
  const digest = headers.get('content-digest');
  if (request.body !== '' && digest === undefined) throw new Error('a body without Content-Digest');
  if (digest !== undefined && checkContentDigest(digest.join(', '), Buffer.from(request.body)) !== 'match')
    throw new Error('the Content-Digest does not match the body');
  return signature.params;
}
