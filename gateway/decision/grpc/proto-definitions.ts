// The vendored protocol buffers (proto/, with the Envoy commit each came from), loaded at run time
// by @grpc/proto-loader: the authorization service the gRPC decision listener serves, for it and
// for the tests' client. proto/ is a top-level folder that tsc does not copy: it is found from this
// module's location, whether that is gateway/decision/grpc/ (tsx) or dist/gateway/decision/grpc/
// (npm start), by walking up to the folder holding package.json.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';

export const AUTHORIZATION_SERVICE = 'envoy.service.auth.v3.Authorization';
const AUTHORIZATION_PROTO = 'envoy/service/auth/v3/external_auth.proto';

/**
 * Field names as the .proto files spell them (ok_response, headers_to_remove: Envoy's documentation
 * names them so), int64 as numbers (a request size), enums as numbers, bytes as Buffers, and only
 * the fields that were sent (an unset oneof stays unset).
 */
export const LOADER_OPTIONS: Options = { keepCase: true, longs: Number, enums: Number, defaults: false, oneofs: true };

export function findProtoDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'proto', AUTHORIZATION_PROTO))) return join(dir, 'proto');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`proto/${AUTHORIZATION_PROTO} not found above ${from}`);
    dir = parent;
  }
}

/** envoy.service.auth.v3.Authorization, as grpc-js serves it and builds a client for it. */
export function authorizationService(): ServiceDefinition {
  const loaded = loadSync(AUTHORIZATION_PROTO, { ...LOADER_OPTIONS, includeDirs: [findProtoDir()] });
  return loaded[AUTHORIZATION_SERVICE] as ServiceDefinition;
}
