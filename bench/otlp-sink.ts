// The collector the sampled tracing row exports to: accepts every OTLP/HTTP POST and discards it
// (an empty ExportTraceServiceResponse), in a process of its own so that its CPU is not the
// gateway's. Prints the spans' bytes received when it stops, to show that they arrived.
//   node dist/bench/otlp-sink.js PORT
import { createServer } from 'node:http';

const [port = '0'] = process.argv.slice(2);
let bytes = 0;
let exports = 0;
const server = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    exports++;
    const json = request.headers['content-type']?.startsWith('application/json');
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
    response.end(json ? '{}' : undefined);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.once('SIGTERM', () => {
  console.log(`otlp sink: ${exports} exports, ${bytes} bytes`);
  process.exit(0);
});
