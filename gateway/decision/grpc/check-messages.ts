// The envoy.service.auth.v3 messages as the gRPC decision listener reads and writes them: plain
// objects with the .proto field names (proto-definitions.ts LOADER_OPTIONS). What Envoy sends is
// typed as optional throughout: proto3 omits every field left at its default, and a caller that is
// not Envoy may send anything.

export interface HeaderValue {
  key?: string;
  value?: string;
  /** The value's bytes, for a header_map (Envoy's encode_raw_headers). */
  raw_value?: Buffer;
}

export interface SocketAddress {
  address?: string;
  port_value?: number;
}

export interface Peer {
  address?: { socket_address?: SocketAddress; pipe?: { path?: string } };
  service?: string;
  principal?: string;
  certificate?: string;
}

export interface HttpRequest {
  id?: string;
  method?: string;
  headers?: Record<string, string>;
  header_map?: { headers?: HeaderValue[] };
  path?: string;
  host?: string;
  scheme?: string;
  size?: number;
  protocol?: string;
  body?: string;
  raw_body?: Buffer;
}

export interface CheckRequest {
  attributes?: {
    source?: Peer;
    destination?: Peer;
    request?: { http?: HttpRequest };
    context_extensions?: Record<string, string>;
  };
}

/** How Envoy applies an answered header: OVERWRITE_IF_EXISTS_OR_ADD replaces whatever the client sent. */
export const OVERWRITE_IF_EXISTS_OR_ADD = 2;

export interface HeaderValueOption {
  header: { key: string; value: string };
  append_action: number;
}

/** google.protobuf.Struct as protobufjs encodes it. */
export interface Struct {
  fields: Record<string, { stringValue: string }>;
}

export interface OkHttpResponse {
  headers: HeaderValueOption[];
  headers_to_remove: string[];
  response_headers_to_add: HeaderValueOption[];
}

export interface DeniedHttpResponse {
  /** An envoy.type.v3.StatusCode: the HTTP status itself. */
  status: { code: number };
  headers: HeaderValueOption[];
  body: string;
}

export interface CheckResponse {
  /** google.rpc.Status: code 0 (OK) allows, any other refuses. */
  status: { code: number; message?: string };
  ok_response?: OkHttpResponse;
  denied_response?: DeniedHttpResponse;
  dynamic_metadata?: Struct;
}
