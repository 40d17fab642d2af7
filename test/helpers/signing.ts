// Shortcuts for tests of signed banking routes: create a service account through the admin API,
// send signed requests with the exported signing library, read the auth-failure metric.
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { InjectOptions } from 'fastify';
import {
  headerFields,
  requestFromUrl,
  signMessage,
  signRequest,
  sshPublicKeyLine,
  type SignatureParameters,
  type SignRequestOptions,
} from '../../gateway/signing/index.js';
import type { CreatedServiceAccountView } from '../../gateway/admin/service-accounts-routes.js';
import { parsePolicyFile } from '../../gateway/policy/policy-loader.js';
import type { TestGateway } from './gateway.js';
import { REPO_ROOT } from './repo-root.js';

const BANKING_POLICY = `${REPO_ROOT}policies/banking.yaml`;
/** Every permission the shipped banking policy declares. */
export const ALL_PERMISSIONS: readonly string[] = parsePolicyFile(BANKING_POLICY, readFileSync(BANKING_POLICY, 'utf8')).declared.permissions.map((p) => p.name);

/** The Host every signed test request is sent with (and so the signed @authority). */
export const BANKING_HOST = 'banking.test';

export type CreatedServiceAccount = CreatedServiceAccountView;

export interface TestServiceAccount {
  account: CreatedServiceAccount;
  privateKey: KeyObject;
}

export function adminInject(tg: TestGateway, options: InjectOptions) {
  return tg.gateway.adminApp.inject({ ...options, headers: { authorization: `Bearer ${tg.adminToken}`, ...(options.headers ?? {}) } } as InjectOptions);
}

export async function createServiceAccount(tg: TestGateway, fields: Record<string, unknown> = {}): Promise<TestServiceAccount> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const response = await adminInject(tg, {
    method: 'POST',
    url: '/admin/v1/service-accounts',
    payload: { description: 'test account', public_key: sshPublicKeyLine(privateKey, 'test@example'), permissions: ALL_PERMISSIONS, ...fields },
  });
  if (response.statusCode !== 201) throw new Error(`service account creation failed: ${response.statusCode} ${response.body}`);
  return { account: response.json<CreatedServiceAccount>(), privateKey };
}

export interface SignedInjectOptions {
  method: string;
  /** Path and query, e.g. /v1/balance?x=1. */
  url: string;
  /** Send to this path and query instead of the signed one (tampering). */
  sendUrl?: string;
  /** Send with this method instead of the signed one (tampering). */
  sendMethod?: string;
  /** Send this body instead of the signed one (tampering). */
  sendBody?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Changes the signing inputs (created, nonce, coverHeaders, ...). */
  sign?: Partial<SignRequestOptions>;
  /** Applied to the headers after signing (tampering, removal with undefined). */
  after?: Record<string, string | string[] | undefined>;
  remoteAddress?: string;
}

export function signedHeaders(sa: TestServiceAccount, options: SignedInjectOptions): Record<string, string | string[]> {
  const headers = { host: BANKING_HOST, ...(options.headers ?? {}) };
  const added = signRequest({
    method: options.method,
    url: `http://${BANKING_HOST}${options.url}`,
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    accessId: sa.account.access_id,
    privateKey: sa.privateKey,
    ...options.sign,
  });
  const all: Record<string, string | string[] | undefined> = { ...headers, ...added, ...(options.after ?? {}) };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string | string[]] => e[1] !== undefined));
}

export function signedInject(tg: TestGateway, sa: TestServiceAccount, options: SignedInjectOptions) {
  return tg.gateway.publicApp.inject({
    method: (options.sendMethod ?? options.method) as InjectOptions['method'],
    url: options.sendUrl ?? options.url,
    headers: signedHeaders(sa, options),
    ...((options.sendBody ?? options.body) === undefined ? {} : { payload: options.sendBody ?? options.body }),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** The value of gateway_auth_failures_total for one scheme and reason (0 when absent). */
export async function authFailures(tg: TestGateway, reason: string, scheme = 'signature'): Promise<number> {
  const response = await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' });
  const line = response.body.split('\n').find((l) => l.startsWith(`gateway_auth_failures_total{scheme="${scheme}",reason="${reason}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** A signature made with the generic signMessage, for shapes signRequest never produces. */
export function customSignature(
  sa: TestServiceAccount,
  options: { method: string; url: string; components: string[]; params?: SignatureParameters; headers?: Record<string, string> },
): Record<string, string> {
  const headers = { host: BANKING_HOST, 'x-access-id': sa.account.access_id, ...(options.headers ?? {}) };
  const params: SignatureParameters = {
    created: Math.floor(Date.now() / 1000),
    nonce: randomUUID(),
    keyid: sa.account.access_id,
    alg: 'ed25519',
    ...options.params,
  };
  const signed = signMessage(
    requestFromUrl(options.method, `http://${BANKING_HOST}${options.url}`, headerFields(Object.entries(headers))),
    options.components,
    params,
    sa.privateKey,
  );
  return { ...headers, 'signature-input': signed['signature-input'], signature: signed.signature };
}
