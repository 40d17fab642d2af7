// The load generator of the gRPC decision row: gRPC calls over one HTTP/2 connection from the bench
// process, as Envoy's ext_authz filter makes them (every Check with a deadline), with a bounded
// number in flight (the run's connection count) for a bounded time. No ghz here: it is not
// packaged. It speaks gRPC's wire format over node:http2 itself (a grpc-js client cost the bench
// process so much that the gateway waited for it, 45 % idle): the CheckRequest is framed once, and
// each answer read only as far as its grpc-status and google.rpc code, so that the generator's own
// cost (it shares the two cores with the gateway, as wrk does) stays small. Only the gateway's CPU
// is measured, as with wrk and autocannon.
import { connect, constants, type IncomingHttpHeaders } from 'node:http2';
import { loadSync } from '@grpc/proto-loader';
import type { CheckRequest } from '../gateway/decision/grpc/check-messages.js';
import { AUTHORIZATION_SERVICE, findProtoDir, LOADER_OPTIONS } from '../gateway/decision/grpc/proto-definitions.js';
import type { LoadGenerator, LoadResult } from './load-target.js';

const CHECK_PATH = `/${AUTHORIZATION_SERVICE}/Check`;
const CALL_HEADERS = {
  [constants.HTTP2_HEADER_METHOD]: 'POST',
  [constants.HTTP2_HEADER_PATH]: CHECK_PATH,
  'content-type': 'application/grpc',
  te: 'trailers',
  'grpc-timeout': '5S',
};

/** A gRPC message on the wire: uncompressed, its length, then its bytes. */
function framed(message: Buffer): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The CheckRequest Envoy sends for a Bearer GET from a client at `clientAddress`. */
export function envoyBearerCheck(path: string, host: string, token: string, clientAddress: string): CheckRequest {
  return {
    attributes: {
      source: { address: { socket_address: { address: clientAddress, port_value: 40_000 } } },
      request: {
        http: {
          method: 'GET',
          path,
          host,
          scheme: 'http',
          protocol: 'HTTP/1.1',
          headers: { ':authority': host, ':method': 'GET', ':path': path, ':scheme': 'http', authorization: `Bearer ${token}`, 'x-forwarded-proto': 'http' },
        },
      },
    },
  };
}

/** A CheckRequest as it goes on the wire. */
export function encodeCheck(request: CheckRequest): Buffer {
  const service = loadSync('envoy/service/auth/v3/external_auth.proto', { ...LOADER_OPTIONS, includeDirs: [findProtoDir()] })[
    AUTHORIZATION_SERVICE
  ] as unknown as {
    Check: { requestSerialize(value: CheckRequest): Buffer };
  };
  return service.Check.requestSerialize(request);
}

/**
 * The google.rpc code of an encoded CheckResponse: field 1 (status) comes first as the gateway
 * encodes it, and its field 1 (code) is a one-byte varint for every code there is; absent is OK.
 */
export function rpcCodeOf(response: Buffer): number {
  if (response[0] !== 0x0a || response[1] === 0 || response[2] !== 0x08) return 0;
  return response[3]!;
}

/** Sends `request` to host:port for the run's seconds, with `connections` calls in flight at once. */
export function grpcCheckGenerator(address: string, request: CheckRequest): LoadGenerator {
  const frame = framed(encodeCheck(request));
  return {
    name: 'node:http2 gRPC client',
    async run(_target, options): Promise<LoadResult> {
      const session = connect(`http://${address}`);
      session.on('error', () => {});
      // The answer's message (past its 5-byte prefix), once the call ended with grpc-status 0.
      const check = () =>
        new Promise<Buffer>((resolve, reject) => {
          const call = session.request(CALL_HEADERS);
          const chunks: Buffer[] = [];
          call.on('data', (chunk: Buffer) => chunks.push(chunk));
          call.on('trailers', (trailers: IncomingHttpHeaders) => {
            if (trailers['grpc-status'] === '0') resolve(Buffer.concat(chunks).subarray(5));
            else reject(new Error(`grpc-status ${String(trailers['grpc-status'])}`));
          });
          call.on('error', reject);
          call.on('close', () => reject(new Error('the call ended without trailers')));
          call.end(frame);
        });
      const latencies: number[] = [];
      let requests = 0;
      let refused = 0;
      let errors = 0;
      const started = performance.now();
      const end = started + options.seconds * 1000;
      const worker = async () => {
        while (performance.now() < end) {
          const sent = performance.now();
          try {
            const code = rpcCodeOf(await check());
            requests++;
            if (code === 0) latencies.push(performance.now() - sent);
            else refused++;
          } catch {
            errors++;
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: options.connections }, worker));
      } finally {
        session.close();
      }
      latencies.sort((a, b) => a - b);
      return {
        requests,
        requestsPerSecond: requests / ((performance.now() - started) / 1000),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        non2xx: refused,
        errors,
        poolExhausted: 0,
      };
    },
  };
}
