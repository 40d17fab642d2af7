// A real OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1, port 0, that accepts
// what an exporter POSTs to /v1/traces, decodes it (http/json as JSON; http/protobuf with the
// wire-format reader below, after the OTLP trace proto's field numbers) and keeps the spans.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** 2: SERVER, 3: CLIENT (the OTLP enum). */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, string | number | boolean>>;
}

export interface OtlpReceiver {
  /** The full URL to export to (…/v1/traces). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The content types of the requests received. */
  readonly contentTypes: string[];
  close(): Promise<void>;
}

export const SPAN_KIND = { server: 2, client: 3 } as const;

// --- http/protobuf: the wire format (varint, fixed64, length-delimited, fixed32) -----------------

type Field = { wire: 0; value: bigint } | { wire: 1; value: Buffer } | { wire: 2; value: Buffer } | { wire: 5; value: Buffer };

function readVarint(buffer: Buffer, at: { pos: number }): bigint {
  let result = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    const byte = buffer[at.pos++];
    if (byte === undefined) throw new Error('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
  }
  throw new Error('varint too long');
}

/** A message's fields by number, each in the order it came. */
function fields(buffer: Buffer): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  const at = { pos: 0 };
  while (at.pos < buffer.length) {
    const tag = Number(readVarint(buffer, at));
    const wire = tag & 7;
    let field: Field;
    if (wire === 0) field = { wire, value: readVarint(buffer, at) };
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      field = { wire, value: buffer.subarray(at.pos, at.pos + size) };
      at.pos += size;
    } else if (wire === 2) {
      const length = Number(readVarint(buffer, at));
      field = { wire, value: buffer.subarray(at.pos, at.pos + length) };
      at.pos += length;
    } else throw new Error(`wire type ${wire} is not used by OTLP`);
    out.set(tag >> 3, [...(out.get(tag >> 3) ?? []), field]);
  }
  return out;
}

const bytesOf = (message: Map<number, Field[]>, n: number): Buffer[] => (message.get(n) ?? []).map((f) => f.value as Buffer);
const firstBytes = (message: Map<number, Field[]>, n: number): Buffer => bytesOf(message, n)[0] ?? Buffer.alloc(0);
const varintOf = (message: Map<number, Field[]>, n: number): number => Number((message.get(n)?.[0]?.value as bigint | undefined) ?? 0n);

/** KeyValue { 1 key; 2 AnyValue { 1 string, 2 bool, 3 int, 4 double } }. */
function protobufAttributes(encoded: Buffer[]): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const entry of encoded) {
    const keyValue = fields(entry);
    const value = fields(firstBytes(keyValue, 2));
    const key = firstBytes(keyValue, 1).toString('utf8');
    if (value.has(1)) attributes[key] = firstBytes(value, 1).toString('utf8');
    else if (value.has(2)) attributes[key] = varintOf(value, 2) === 1;
    else if (value.has(3)) attributes[key] = varintOf(value, 3);
    else if (value.has(4)) attributes[key] = firstBytes(value, 4).readDoubleLE(0);
  }
  return attributes;
}

/** ExportTraceServiceRequest { 1 ResourceSpans { 1 Resource { 1 attributes }, 2 ScopeSpans { 2 Span } } }. */
export function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(fields(body), 1).map(fields)) {
    const resource = protobufAttributes(bytesOf(fields(firstBytes(resourceSpans, 1)), 1));
    for (const scopeSpans of bytesOf(resourceSpans, 2).map(fields)) {
      for (const span of bytesOf(scopeSpans, 2).map(fields)) {
        spans.push({
          traceId: firstBytes(span, 1).toString('hex'),
          spanId: firstBytes(span, 2).toString('hex'),
          parentSpanId: firstBytes(span, 4).toString('hex'),
          name: firstBytes(span, 5).toString('utf8'),
          kind: varintOf(span, 6),
          attributes: protobufAttributes(bytesOf(span, 9)),
          statusCode: varintOf(fields(firstBytes(span, 15)), 3),
          resource,
        });
      }
    }
  }
  return spans;
}

// --- http/json ------------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue);
    if (v !== undefined) attributes[key] = v;
  }
  return attributes;
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonKeyValue[];
  status?: { code?: number };
}

export function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans: { spans: JsonSpan[] }[] }[];
  };
  return request.resourceSpans.flatMap((resourceSpans) => {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    return resourceSpans.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
        statusCode: span.status?.code ?? 0,
        resource,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const type = request.headers['content-type'] ?? '';
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      spans.push(...(type.startsWith('application/json') ? decodeJson(body) : decodeProtobuf(body)));
      // An empty ExportTraceServiceResponse: everything accepted.
      if (type.startsWith('application/json')) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
