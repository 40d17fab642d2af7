// fast-check arbitraries of stored records: each in its current shape, and the shapes older
// versions stored (the fields added since left out), with how those versions read them: the
// fallbacks the readers had before the layout migration's version 3 made the fields required.
import fc from 'fast-check';
import type { StoredAccount, StoredClient, StoredKeySetForm } from '../../gateway/store/record-upgrades.js';
import type { RetiredKey, StoredKey, StoredKeySet, WithdrawnKey } from '../../gateway/store/signing-key-set-record.js';
import type { ClientKey, ClientRecord, ServiceAccountKey, ServiceAccountRecord } from '../../gateway/store/types.js';

/** JSON.parse makes objects with the usual prototype: so do these, so that they compare equal. */
const PLAIN = { noNullPrototype: true } as const;

const instant = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
const text = fc.string({ maxLength: 12 });
const base64url = fc.base64String({ minLength: 4, maxLength: 44 }).map((s) => s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));

const clientKeys: fc.Arbitrary<ClientKey> = fc
  .record({ kid: fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), x: base64url, addedAt: instant }, PLAIN)
  .map(({ kid, x, addedAt }) => ({ kid, jwk: { crv: 'Ed25519', kty: 'OKP', x, kid }, addedAt }));

/** A secret client (either method, no keys) or a private_key_jwt client (keys, no secret). */
const authentication = fc.oneof(
  fc.record(
    {
      secretHash: fc.stringMatching(/^[0-9a-f]{64}$/),
      tokenEndpointAuthMethod: fc.constantFrom('client_secret_basic' as const, 'client_secret_post' as const),
      jwks: fc.constant<ClientKey[]>([]),
    },
    PLAIN,
  ),
  fc.record(
    {
      secretHash: fc.constant(null),
      tokenEndpointAuthMethod: fc.constant('private_key_jwt' as const),
      jwks: fc.array(clientKeys, { minLength: 1, maxLength: 2 }),
    },
    PLAIN,
  ),
);

export const clientRecords: fc.Arbitrary<ClientRecord> = fc
  .tuple(
    fc.record(
      {
        clientId: fc.uuid(),
        name: text,
        scopes: fc.array(text, { maxLength: 3 }),
        accountId: fc.option(text, { nil: null }),
        createdAt: instant,
        resourceServer: fc.boolean(),
      },
      PLAIN,
    ),
    authentication,
    fc.option(fc.record({ previousSecretHash: fc.stringMatching(/^[0-9a-f]{64}$/), previousSecretExpiresAt: instant }, PLAIN), { nil: undefined }),
    fc.boolean(),
  )
  // The field added last stays last: where the upgrade of an older record adds it, so that both write the same JSON.
  .map(([client, auth, previous, dpopBoundAccessTokens]) => ({ ...client, ...auth, ...(auth.secretHash === null ? {} : previous), dpopBoundAccessTokens }));

/** A client as stored before `dpopBoundAccessTokens` existed (layout version 4), from a current one. */
export function withoutDpopBinding(client: ClientRecord): StoredClient {
  const { dpopBoundAccessTokens: _d, ...stored } = client;
  return stored;
}

/** A client as stored before `resourceServer` existed, from a current one. */
export function withoutResourceServer(client: ClientRecord): StoredClient {
  const { resourceServer: _r, ...stored } = withoutDpopBinding(client);
  return stored;
}

/**
 * A client as stored before `tokenEndpointAuthMethod` and `jwks` existed (every client had a
 * secret then), from a current secret client; with or without `resourceServer`.
 */
export function withoutAuthMethod(client: ClientRecord, keepResourceServer: boolean): StoredClient {
  const { tokenEndpointAuthMethod: _m, jwks: _k, ...stored } = withoutDpopBinding(client);
  return keepResourceServer ? stored : withoutResourceServer(stored as ClientRecord);
}

const accountKeys: fc.Arbitrary<ServiceAccountKey> = fc.record(
  {
    publicKey: text.map((s) => `ssh-ed25519 AAAA${s}`),
    publicKeyBytes: base64url,
    fingerprint: text.map((s) => `SHA256:${s}`),
    addedAt: instant,
  },
  PLAIN,
);

/** Accounts as either store keeps them: with their usage (the embedded store) or without (Redis). */
export const serviceAccountRecords: fc.Arbitrary<ServiceAccountRecord> = fc
  .record({
    id: fc.uuid(),
    accessId: fc.uuid(),
    description: text,
    permissions: fc.array(text, { maxLength: 3 }),
    allowedIps: fc.array(fc.ipV4(), { maxLength: 2 }),
    accountId: fc.option(text, { nil: null }),
    createdAt: instant,
    lastUsedAt: fc.option(instant, { nil: null }),
    lastUsedIp: fc.option(fc.ipV4(), { nil: null }),
    expiresAt: fc.option(instant, { nil: null }),
    publicKeys: fc.array(accountKeys, { minLength: 1, maxLength: 2 }),
  })
  .map(({ publicKeys, ...account }) => {
    const [first] = publicKeys;
    return { ...account, publicKey: first!.publicKey, publicKeyBytes: first!.publicKeyBytes, fingerprint: first!.fingerprint, publicKeys };
  });

/** What an older version left out of an account: `expiresAt`, and `publicKeys` (left out or empty). */
export const accountOmissions = fc.record({ expiresAt: fc.boolean(), publicKeys: fc.constantFrom('kept', 'absent', 'empty') }, PLAIN);

/** The account as stored by an older version: at least one of its newer fields left out. */
export function olderAccount(
  account: ServiceAccountRecord,
  omit: { expiresAt: boolean; publicKeys: 'kept' | 'absent' | 'empty' },
): StoredAccount<ServiceAccountRecord> {
  const { expiresAt, publicKeys, ...rest } = account;
  return {
    ...rest,
    ...(omit.expiresAt ? {} : { expiresAt }),
    ...(omit.publicKeys === 'kept' ? { publicKeys } : omit.publicKeys === 'empty' ? { publicKeys: [] } : {}),
  };
}

const storedKeys: fc.Arbitrary<StoredKey> = fc.record(
  {
    kid: fc.uuid(),
    alg: fc.constantFrom('EdDSA', 'ES256', 'RS256'),
    privateJwk: fc.record({ kty: fc.constant('OKP'), crv: fc.constant('Ed25519'), x: base64url, d: base64url }, PLAIN),
    publicJwk: fc.record({ kty: fc.constant('OKP'), crv: fc.constant('Ed25519'), x: base64url, use: fc.constant('sig') }, PLAIN),
    createdAt: fc.oneof(instant, fc.constant('')),
  },
  PLAIN,
);
const retiredKeys: fc.Arbitrary<RetiredKey> = fc.tuple(storedKeys, instant).map(([key, retiredAt]) => ({ ...key, retiredAt }));
const withdrawnKeys: fc.Arbitrary<WithdrawnKey> = fc
  .tuple(retiredKeys, instant)
  .map(([{ privateJwk: _p, publicJwk: _q, ...key }, withdrawnAt]) => ({ ...key, withdrawnAt }));

export const keySets: fc.Arbitrary<StoredKeySet> = fc.record(
  {
    active: storedKeys,
    retired: fc.array(retiredKeys, { maxLength: 3 }),
    withdrawn: fc.array(withdrawnKeys, { maxLength: 2 }),
  },
  PLAIN,
);

/** Key sets in the forms older versions stored: without `withdrawn`, or the first form (one previous key). */
export const olderKeySets: fc.Arbitrary<StoredKeySetForm> = fc.oneof(
  keySets.map(({ withdrawn: _w, ...set }) => set),
  fc.record({ active: storedKeys, previous: fc.option(storedKeys, { nil: null }) }, { ...PLAIN, requiredKeys: ['active'] }),
);

// How the readers read these fields before version 3 (the fallbacks it removed).

/** Token introspection was allowed only with resourceServer exactly true. */
export function mayIntrospectAsBefore(client: { resourceServer?: unknown }): boolean {
  return client.resourceServer === true;
}

export function expiryAsBefore(account: { expiresAt?: string | null }): string | null {
  return account.expiresAt ?? null;
}

type OlderKeyFields = Pick<ServiceAccountRecord, 'publicKey' | 'publicKeyBytes' | 'fingerprint' | 'createdAt'> & { publicKeys?: ServiceAccountKey[] };

/** serviceAccountKeys before version 3. */
export function accountKeysAsBefore(account: OlderKeyFields): ServiceAccountKey[] {
  if (account.publicKeys && account.publicKeys.length > 0) return account.publicKeys;
  return [{ publicKey: account.publicKey, publicKeyBytes: account.publicKeyBytes, fingerprint: account.fingerprint, addedAt: account.createdAt }];
}

/** parseKeySet before version 3. */
export function keySetAsBefore(raw: string): StoredKeySet {
  const set = JSON.parse(raw) as Partial<StoredKeySet> & { active: StoredKey; previous?: StoredKey | null };
  const withdrawn = Array.isArray(set.withdrawn) ? set.withdrawn : [];
  if (Array.isArray(set.retired)) return { active: set.active, retired: set.retired, withdrawn };
  return { active: set.active, retired: set.previous ? [{ ...set.previous, retiredAt: set.active.createdAt }] : [], withdrawn };
}
