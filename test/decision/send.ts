// One HTTP/1.1 exchange with node:http, for tests that go through an edge proxy: unlike fetch it
// sends the Host header as given (a signed request's @authority is the Host the client addressed).
import { request } from 'node:http';

export interface Sent {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

/** Sends one request; rejects after timeoutMs (every wait in these tests is bounded). */
export function send(url: string, method: string, headers: Record<string, string | string[]>, body?: string, timeoutMs = 5000): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, timeout: timeoutMs }, (response) => {
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
