// One exchange with node:http (HTTP/1.1) or node:http2 (h2c), for tests that go through an edge proxy: unlike fetch it
// sends the Host header as given (a signed request's @authority is the Host the client addressed).
import { request } from 'node:http';
import { connect } from 'node:http2';

export interface Sent {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** Sends one request; rejects after timeoutMs (every wait in these tests is bounded). */
export function send(url: string, method: string, headers: Record<string, string | string[]>, body?: string, timeoutMs = 5000): Promise<Sent> {
  return new Promise((resolve, reject) => {
    // Node frames no body of a GET, HEAD, DELETE or OPTIONS by itself: state its length unless told how.
    const framed = body === undefined || 'content-length' in headers || 'transfer-encoding' in headers;
    const fields = framed ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const outgoing = request(url, { method, headers: fields, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        // Repeated fields joined as Node would send them on; a repeat shows as ", " inside the value.
        const fields: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(response.headers)) fields[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: response.statusCode ?? 0, headers: fields, body: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * One HTTP/2 exchange over cleartext with prior knowledge (h2c), as an HTTP/2 edge receives it. The
 * body goes in DATA frames; with lengthless, no content-length field is sent (HTTP/2 does not need
 * one), so the edge cannot know of the body from the headers alone.
 */
export function sendH2(
  url: string,
  method: string,
  headers: Record<string, string | string[]>,
  body?: string,
  options: { lengthless?: boolean; timeoutMs?: number } = {},
): Promise<Sent> {
  const { origin, pathname, search } = new URL(url);
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    const session = connect(origin);
    const timer = setTimeout(() => session.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      session.destroy();
      reject(error);
    };
    session.on('error', fail);
    // HTTP/2 has no Host field: the authority is :authority (a given host header becomes it).
    const { host, ...fields } = headers;
    const length = body !== undefined && !options.lengthless ? { 'content-length': String(Buffer.byteLength(body)) } : {};
    const stream = session.request(
      { ':method': method, ':path': `${pathname}${search}`, ':authority': host ?? new URL(url).host, ...fields, ...length },
      { endStream: body === undefined },
    );
    const chunks: Buffer[] = [];
    let status = 0;
    const received: Record<string, string | undefined> = {};
    stream.on('response', (responseHeaders) => {
      status = Number(responseHeaders[':status']);
      for (const [name, value] of Object.entries(responseHeaders))
        if (!name.startsWith(':')) received[name] = Array.isArray(value) ? value.join(', ') : String(value);
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve({ status, headers: received, body: Buffer.concat(chunks).toString('utf8') });
    });
    stream.on('error', fail);
    if (body !== undefined) stream.end(body);
  });
}
