// The comparison point: a bare @fastify/http-proxy to the same upstream, with no checks at all.
import Fastify from 'fastify';
import httpProxy from '@fastify/http-proxy';

const [upstream, port] = process.argv.slice(2);
const app = Fastify({ logger: false });
await app.register(httpProxy, { upstream: upstream! });
await app.listen({ host: '127.0.0.1', port: Number(port) });
console.log('ready');
