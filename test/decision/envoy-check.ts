// What the tests of the gRPC decision listener share: a gateway with the listener on loopback and a
// grpc-js client of it, and CheckRequests shaped as Envoy's ext_authz filter builds them (its
// documentation and the attribute_context.proto comments): the request line and authority in
// attributes.request.http (with the pseudo-headers in the headers map too), the client's headers
// lower-cased, the downstream peer in attributes.source.address, and with with_request_body the body
// with x-envoy-auth-partial-body.
import type { Test } from 'tap';
import { authorizationClient, type AuthorizationClient, type CheckAnswer } from '../../bench/grpc-authorization-client.js';
import type { CheckRequest, HeaderValueOption } from '../../gateway/decision/grpc/check-messages.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.js';
import { decisionConfig } from './decision-policies.js';

export interface GrpcGateway {
  tg: TestGateway;
  client: AuthorizationClient;
  port: number;
}

/** A test gateway with the gRPC decision listener (trusting loopback) and a client of it. */
export async function startGrpcGateway(t: Test, config: Record<string, unknown> = {}, options: TestGatewayOptions = {}): Promise<GrpcGateway> {
  const tg = await startTestGateway(t, { ...options, config: decisionConfig(t, { decision_port: null, decision_grpc_port: 0, ...config }) });
  const port = await tg.gateway.decisionGrpc!.listen('127.0.0.1', 0);
  const client = authorizationClient(`127.0.0.1:${port}`);
  t.teardown(() => client.close());
  return { tg, client, port };
}

export interface EnvoyAsk {
  method: string;
  /** Path and query, as sent. */
  path: string;
  host: string;
  headers?: Record<string, string | string[]>;
  /** with_request_body: the whole body as the string field (pack_as_bytes off). */
  body?: string;
  /** with_request_body with pack_as_bytes: the body as raw_body. */
  rawBody?: Buffer;
  /** with_request_body, but only part of the body (allow_partial_message). */
  partial?: boolean;
  /** The downstream client (attributes.source.address). */
  client?: string;
  scheme?: 'http' | 'https';
  /** encode_raw_headers: the headers as a header_map, values in raw_value, repeats apart. */
  raw?: boolean;
}

/** The CheckRequest Envoy's HTTP ext_authz filter sends for a request. */
export function envoyCheck(ask: EnvoyAsk): CheckRequest {
  const scheme = ask.scheme ?? 'https';
  const fields: [string, string][] = [
    [':authority', ask.host],
    [':method', ask.method],
    [':path', ask.path],
    [':scheme', scheme],
    ['x-forwarded-proto', scheme],
    ['x-request-id', 'envoy-7f3c'],
  ];
  for (const [name, value] of Object.entries(ask.headers ?? {})) {
    if (name === 'host') continue;
    for (const one of Array.isArray(value) ? value : [value]) fields.push([name.toLowerCase(), one]);
  }
  const bodySent = ask.body !== undefined || ask.rawBody !== undefined;
  if (bodySent) fields.push(['x-envoy-auth-partial-body', ask.partial ? 'true' : 'false']);
  const http: NonNullable<NonNullable<CheckRequest['attributes']>['request']>['http'] = {
    id: '1234567890',
    method: ask.method,
    path: ask.path,
    host: ask.host,
    scheme,
    protocol: 'HTTP/1.1',
    ...(ask.body !== undefined ? { body: ask.body } : {}),
    ...(ask.rawBody !== undefined ? { raw_body: ask.rawBody } : {}),
  };
  if (ask.raw) http.header_map = { headers: fields.map(([key, value]) => ({ key, raw_value: Buffer.from(value, 'latin1') })) };
  else {
    // Envoy's headers map joins a repeated field's values with a comma.
    const map: Record<string, string> = {};
    for (const [name, value] of fields) map[name] = name in map ? `${map[name]},${value}` : value;
    http.headers = map;
  }
  return {
    attributes: {
      source: { address: { socket_address: { address: ask.client ?? '198.51.100.7', port_value: 40_000 } } },
      destination: { address: { socket_address: { address: '10.0.0.2', port_value: 8080 } } },
      request: { http },
    },
  };
}

/** An answered header's value (the last one of that name), or undefined. */
export function answered(options: readonly HeaderValueOption[] | undefined, name: string): string | undefined {
  return options?.filter((o) => o.header.key === name).at(-1)?.header.value;
}

/** Asserts an allowed answer: status OK (code 0, absent on the wire) and an ok_response. */
export function allowed(t: Test, answer: CheckAnswer): NonNullable<CheckAnswer['ok_response']> {
  t.equal(answer.status?.code ?? 0, 0, `allowed: ${answer.status?.message ?? ''} ${answer.denied_response?.body ?? ''}`);
  t.ok(answer.ok_response, 'an ok_response');
  t.notOk(answer.denied_response, 'no denied_response');
  return answer.ok_response!;
}

/** Asserts a refusal: the google.rpc code, the HTTP status, the JSON body's error and the x-gateway-error header. */
export function refused(
  t: Test,
  answer: CheckAnswer,
  status: number,
  code: string,
  rpcCode: number,
): { body: Record<string, string>; headers: readonly HeaderValueOption[] } {
  const denied = answer.denied_response;
  t.ok(denied, `${code}: a denied_response`);
  t.equal(answer.status?.code, rpcCode, `${code}: google.rpc code ${rpcCode}`);
  t.equal(denied?.status.code, status, `${code}: HTTP ${status}`);
  const body = JSON.parse(denied?.body ?? '{}') as Record<string, string>;
  t.equal(body.error, code, `${code}: the body's error`);
  t.type(body.request_id, 'string');
  t.equal(answered(denied?.headers, 'x-gateway-error'), code, `${code}: x-gateway-error`);
  t.match(answered(denied?.headers, 'content-type'), /^application\/json/);
  t.notOk(answer.ok_response, `${code}: no ok_response`);
  return { body, headers: denied?.headers ?? [] };
}

/** The dynamic metadata's string fields. */
export function metadataOf(answer: CheckAnswer): Record<string, string> {
  return Object.fromEntries(Object.entries(answer.dynamic_metadata?.fields ?? {}).map(([name, value]) => [name, value.stringValue]));
}
