// The upstream behind every proxy in the bench: answers like gateway/examples/echo-upstream.ts
// (the request as JSON) but keeps nothing. The example keeps every request for the tests, which
// over a bench run grows its heap by a million objects and bills their GC to every figure.
//   node dist/bench/echo-upstream.js PORT
import { createServer } from 'node:http';

const [port = '0'] = process.argv.slice(2);
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ upstream: 'bench', method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }),
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
