// A grpc-js client of the gateway's gRPC decision listener, built from the same vendored protos
// (proto/) the listener serves: Envoy's Authorization/Check, and grpc.health.v1.Health. The bench's
// load generator and the tests both speak to the listener through it, as Envoy does: one channel
// (one HTTP/2 connection), every call with a deadline.
import { credentials, loadPackageDefinition, type ChannelOptions, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as HEALTH_PROTO } from 'grpc-health-check';
import type { CheckRequest, CheckResponse } from '../gateway/decision/grpc/check-messages.js';
import { findProtoDir, LOADER_OPTIONS } from '../gateway/decision/grpc/proto-definitions.js';

type Unary<Req, Res> = (request: Req, options: { deadline: number }, callback: (error: ServiceError | null, response?: Res) => void) => void;
type ClientConstructor = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: ChannelOptions) => Client;

/** An answer as the client decodes it: the .proto's field names, fields left at their default absent (status.code 0 among them). */
export type CheckAnswer = Omit<CheckResponse, 'status'> & { status?: { code?: number; message?: string } };

export interface AuthorizationClient {
  check(request: CheckRequest, deadlineMs?: number): Promise<CheckAnswer>;
  /** grpc.health.v1.Health/Check: SERVING, NOT_SERVING, or the gRPC error's text (NOT_FOUND for an unknown service). */
  health(service?: string, deadlineMs?: number): Promise<string>;
  close(): void;
}

function constructorAt(root: unknown, path: string): ClientConstructor {
  return path.split('.').reduce((node, name) => (node as Record<string, unknown>)[name], root) as ClientConstructor;
}

let authorization: ClientConstructor | undefined;
let health: ClientConstructor | undefined;

function constructors(): { authorization: ClientConstructor; health: ClientConstructor } {
  authorization ??= constructorAt(
    loadPackageDefinition(loadSync('envoy/service/auth/v3/external_auth.proto', { ...LOADER_OPTIONS, includeDirs: [findProtoDir()] })),
    'envoy.service.auth.v3.Authorization',
  );
  health ??= constructorAt(loadPackageDefinition(loadSync(HEALTH_PROTO, { keepCase: true, enums: String })), 'grpc.health.v1.Health');
  return { authorization, health };
}

function unary<Req, Res>(client: Client, method: string, request: Req, deadlineMs: number): Promise<Res> {
  const call = (client as unknown as Record<string, Unary<Req, Res>>)[method]!.bind(client);
  return new Promise((resolve, reject) =>
    call(request, { deadline: Date.now() + deadlineMs }, (error, response) => (error ? reject(error) : resolve(response!))),
  );
}

/** A client of host:port over plaintext HTTP/2; `options` are grpc-js channel options (keep-alive, message sizes). */
export function authorizationClient(address: string, options: ChannelOptions = {}): AuthorizationClient {
  const made = constructors();
  const checks = new made.authorization(address, credentials.createInsecure(), options);
  // The health service on its own channel, as Envoy's health checker has its own connection.
  const probes = new made.health(address, credentials.createInsecure());
  return {
    check: (request, deadlineMs = 5000) => unary<CheckRequest, CheckAnswer>(checks, 'Check', request, deadlineMs),
    health: async (service = '', deadlineMs = 5000) => {
      try {
        return (await unary<{ service: string }, { status: string }>(probes, 'Check', { service }, deadlineMs)).status;
      } catch (error) {
        return (error as ServiceError).details;
      }
    },
    close() {
      checks.close();
      probes.close();
    },
  };
}
