// One of each security-relevant change, made through the gateway as an operator or a client would,
// and the checks that each stays in force: a deleted service account, a removed key, a deleted
// client, a revoked token, a rolled secret, a retired signing key, a permission and a scope taken
// away, and a used nonce. The failover
// tests (test/store/*-failover-durability.test.ts) make the changes, lose a master, and check.
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import type { Test } from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import type { TestGateway } from './gateway.js';
import { accessToken, createClient, tokenRequest, type CreatedClient } from './oauth.js';
import { until } from './poll.js';
import { adminInject, createServiceAccount, signedHeaders, signedInject, type TestServiceAccount } from './signing.js';

export interface Credentials {
  /** Deleted by the change. */
  readonly deletedAccount: TestServiceAccount;
  /** Holds two keys; the change removes the first, whose private key is `removedKey`. */
  readonly rotatedAccount: TestServiceAccount;
  readonly removedKey: KeyObject;
  /** Signs the requests whose nonces are checked. */
  readonly signer: TestServiceAccount;
  readonly deletedClient: CreatedClient;
  readonly deletedClientToken: string;
  readonly revokingClient: CreatedClient;
  readonly revokedToken: string;
  readonly rolledClient: CreatedClient;
  /** Loses view_balance by the change. */
  readonly narrowedAccount: TestServiceAccount;
  /** Allowed sales and products; the change leaves it products only. Its token carries both. */
  readonly narrowedClient: CreatedClient;
  readonly narrowedClientToken: string;
  /** A token signed by the key the change retires (rotated out beforehand). */
  readonly retiredKid: string;
  readonly retiredKeyToken: string;
}

const SALES = '/v1/sales/42';
const admin = (tg: TestGateway, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  adminInject(tg, { method, url, ...(payload === undefined ? {} : { payload }) });

function jwtClaims(token: string): { jti: string; client_id: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string; client_id: string };
}

function kidOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
}

/** Creates every credential the changes act on (and the token of a key that is then rotated out). */
export async function prepareCredentials(tg: TestGateway): Promise<Credentials> {
  const [deletedAccount, rotatedAccount, signer, narrowedAccount] = [
    await createServiceAccount(tg),
    await createServiceAccount(tg),
    await createServiceAccount(tg),
    await createServiceAccount(tg),
  ];
  const { privateKey: secondKey } = generateKeyPairSync('ed25519');
  const added = await admin(tg, 'POST', `/admin/v1/service-accounts/${rotatedAccount.account.id}/keys`, {
    public_key: sshPublicKeyLine(secondKey, 'second@example'),
  });
  if (added.statusCode !== 201) throw new Error(`adding a key failed: ${added.statusCode} ${added.body}`);
  const [deletedClient, revokingClient, rolledClient] = [
    await createClient(tg, ['sales']),
    await createClient(tg, ['sales']),
    await createClient(tg, ['sales']),
  ];
  const narrowedClient = await createClient(tg, ['sales', 'products']);
  const retiredKeyToken = await accessToken(tg, revokingClient);
  const rotated = await admin(tg, 'POST', '/admin/v1/signing-keys/rotate');
  if (rotated.statusCode !== 200) throw new Error(`rotation failed: ${rotated.statusCode} ${rotated.body}`);
  return {
    deletedAccount,
    rotatedAccount,
    removedKey: rotatedAccount.privateKey,
    signer,
    deletedClient,
    deletedClientToken: await accessToken(tg, deletedClient),
    revokingClient,
    revokedToken: await accessToken(tg, revokingClient),
    rolledClient,
    narrowedAccount,
    narrowedClient,
    narrowedClientToken: await accessToken(tg, narrowedClient),
    retiredKid: kidOf(retiredKeyToken),
    retiredKeyToken,
  };
}

/** The Redis keys each change writes, to compare what the master and a promoted replica hold. */
export function changedKeys(prefix: string, c: Credentials): Record<string, string> {
  return {
    'service account deletion': `${prefix}sa:{${c.deletedAccount.account.access_id}}`,
    'key removal': `${prefix}sa:{${c.rotatedAccount.account.access_id}}`,
    'client deletion': `${prefix}client:{${c.deletedClient.client_id}}`,
    'token revocation': `${prefix}client:{${c.revokingClient.client_id}}:revoked:${jwtClaims(c.revokedToken).jti}`,
    'secret roll': `${prefix}client:{${c.rolledClient.client_id}}`,
    'signing key retirement': `${prefix}signing-key-retired:${c.retiredKid}`,
    'permission change': `${prefix}sa:{${c.narrowedAccount.account.access_id}}`,
    'scope change': `${prefix}client:{${c.narrowedClient.client_id}}`,
  };
}

/** Makes every change once; the answers by change. */
export async function makeChanges(tg: TestGateway, c: Credentials): Promise<Record<string, { status: number; error: string | undefined }>> {
  const answer = (r: { statusCode: number; body: string }) => ({
    status: r.statusCode,
    error: r.statusCode >= 400 ? (JSON.parse(r.body) as { error?: string }).error : undefined,
  });
  const fingerprint = encodeURIComponent(c.rotatedAccount.account.fingerprint);
  return {
    'service account deletion': answer(await admin(tg, 'DELETE', `/admin/v1/service-accounts/${c.deletedAccount.account.id}`)),
    'key removal': answer(await admin(tg, 'DELETE', `/admin/v1/service-accounts/${c.rotatedAccount.account.id}/keys/${fingerprint}`)),
    'client deletion': answer(await admin(tg, 'DELETE', `/admin/v1/clients/${c.deletedClient.client_id}`)),
    'token revocation': answer(
      await tokenRequestTo(tg, '/v1/oauth/revoke', {
        client_id: c.revokingClient.client_id,
        client_secret: c.revokingClient.client_secret,
        token: c.revokedToken,
      }),
    ),
    'secret roll': answer(await admin(tg, 'POST', `/admin/v1/clients/${c.rolledClient.client_id}/secret`, { grace_seconds: 0 })),
    'signing key retirement': answer(await admin(tg, 'POST', `/admin/v1/signing-keys/${c.retiredKid}/retire`)),
    'permission change': answer(
      await admin(tg, 'PATCH', `/admin/v1/service-accounts/${c.narrowedAccount.account.id}`, {
        permissions: c.narrowedAccount.account.permissions.filter((p) => p !== 'view_balance'),
      }),
    ),
    'scope change': answer(await admin(tg, 'PATCH', `/admin/v1/clients/${c.narrowedClient.client_id}`, { scopes: ['products'] })),
  };
}

function tokenRequestTo(tg: TestGateway, url: string, fields: Record<string, string>) {
  return tg.gateway.publicApp.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** A signed request with a nonce of its own; its headers, to send again. */
export function signedBalance(c: Credentials): Record<string, string | string[]> {
  return signedHeaders(c.signer, { method: 'GET', url: '/v1/balance', sign: { nonce: randomUUID() } });
}

export function sendSigned(tg: TestGateway, headers: Record<string, string | string[]>) {
  return tg.gateway.publicApp.inject({ method: 'GET', url: '/v1/balance', headers });
}

/** Until the gateway serves a read from the store again (after a failover). */
export async function storeServes(tg: TestGateway, c: Credentials, timeoutMs = 15_000): Promise<void> {
  await until(
    async () => (await admin(tg, 'GET', `/admin/v1/clients/${c.rolledClient.client_id}`)).statusCode === 200,
    'the gateway reads the store again',
    timeoutMs,
  );
}

/** Until a request signed now passes (a failover fence lapses after about the clock skew); its headers. */
export async function freshSignedRequestPasses(tg: TestGateway, c: Credentials, timeoutMs = 20_000): Promise<Record<string, string | string[]>> {
  let passed: Record<string, string | string[]> | undefined;
  await until(
    async () => {
      const headers = signedBalance(c);
      if ((await sendSigned(tg, headers)).statusCode !== 200) return false;
      passed = headers;
      return true;
    },
    'a request signed now passes',
    timeoutMs,
  );
  return passed!;
}

/** Every change is in force: each credential is refused as the change says, and each nonce as used. */
export async function assertChangesHold(
  t: Test,
  tg: TestGateway,
  c: Credentials,
  usedNonces: Record<string, string | string[]>[],
  what: string,
): Promise<void> {
  const deleted = await signedInject(tg, c.deletedAccount, { method: 'GET', url: '/v1/balance' });
  t.match(
    { status: deleted.statusCode, error: deleted.json().error },
    { status: 401, error: 'unknown_access_id' },
    `${what}: the deleted service account is refused`,
  );
  const removed = await signedInject(tg, { ...c.rotatedAccount, privateKey: c.removedKey }, { method: 'GET', url: '/v1/balance' });
  t.match(
    { status: removed.statusCode, error: removed.json().error },
    { status: 401, error: 'signature_invalid' },
    `${what}: a signature by the removed key is refused`,
  );
  const bearer = (token: string) => tg.gateway.publicApp.inject({ method: 'GET', url: SALES, headers: { authorization: `Bearer ${token}` } });
  t.equal((await bearer(c.deletedClientToken)).statusCode, 401, `${what}: a token of the deleted client is refused`);
  t.equal(
    (await tokenRequest(tg, { grant_type: 'client_credentials', client_id: c.deletedClient.client_id, client_secret: c.deletedClient.client_secret }))
      .statusCode,
    401,
    `${what}: the deleted client gets no token`,
  );
  t.equal((await bearer(c.revokedToken)).statusCode, 401, `${what}: the revoked token is refused`);
  t.equal(
    (await tokenRequest(tg, { grant_type: 'client_credentials', client_id: c.rolledClient.client_id, client_secret: c.rolledClient.client_secret })).statusCode,
    401,
    `${what}: the rolled-away secret gets no token`,
  );
  t.equal((await bearer(c.retiredKeyToken)).statusCode, 401, `${what}: a token of the retired signing key is refused`);
  const narrowed = await signedInject(tg, c.narrowedAccount, { method: 'GET', url: '/v1/balance' });
  t.match(
    { status: narrowed.statusCode, error: narrowed.json().error },
    { status: 403, error: 'permission_denied' },
    `${what}: the permission taken away is refused`,
  );
  const scoped = await bearer(c.narrowedClientToken);
  t.match({ status: scoped.statusCode, error: scoped.json().error }, { status: 403, error: 'insufficient_scope' }, `${what}: the scope taken away is refused`);
  for (const headers of usedNonces) {
    const replay = await sendSigned(tg, headers);
    // Refused as used when the new master has the nonce, by the fence when it may not.
    const answer = `${replay.statusCode} ${replay.json().error}`;
    t.ok(['401 nonce_replayed', '503 signature_predates_failover'].includes(answer), `${what}: a used nonce is refused (${answer})`);
  }
}
