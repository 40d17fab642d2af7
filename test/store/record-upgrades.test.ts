// The upgrades of stored records (gateway/store/record-upgrades.ts), which the Redis layout
// migration and the embedded snapshot apply: a current record comes back unchanged, byte for byte;
// a record in an older shape reads exactly as the fallbacks of the older readers read it; and
// stored text that is no such record at all is left alone, whatever it holds.
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import fc from 'fast-check';
import { isCurrentKeySet, upgradeClient, upgradedJson, upgradeKeySet, upgradeServiceAccount, type RecordKind } from '../../gateway/store/record-upgrades.js';
import type { StoredKey } from '../../gateway/store/signing-key-set-record.js';
import type { ClientRecord, ServiceAccountRecord } from '../../gateway/store/types.js';
import { holds } from '../helpers/property.js';
import {
  accountKeysAsBefore,
  accountOmissions,
  clientRecords,
  expiryAsBefore,
  keySetAsBefore,
  keySets,
  mayIntrospectAsBefore,
  olderAccount,
  olderKeySets,
  serviceAccountRecords,
  withoutAuthMethod,
  withoutDpopBinding,
  withoutResourceServer,
} from './record-arbitraries.js';
import { clientRecord, serviceAccountRecord } from './contract.js';

const KINDS: RecordKind[] = ['client', 'serviceAccount', 'signingKeySet'];

t.test('a record in its current shape comes back as itself: the same object, the same JSON', async (t) => {
  holds(
    t,
    fc.property(clientRecords, (client) => {
      const json = JSON.stringify(client);
      return upgradeClient(client) === client && upgradedJson('client', json) === null && JSON.stringify(upgradeClient(JSON.parse(json))) === json;
    }),
    300,
  );
  holds(
    t,
    fc.property(serviceAccountRecords, fc.boolean(), (account, withUsage) => {
      const { lastUsedAt: _at, lastUsedIp: _ip, ...withoutUsage } = account;
      const stored = withUsage ? account : withoutUsage;
      const json = JSON.stringify(stored);
      return (
        upgradeServiceAccount(stored) === stored &&
        upgradedJson('serviceAccount', json) === null &&
        JSON.stringify(upgradeServiceAccount(JSON.parse(json))) === json
      );
    }),
    300,
  );
  holds(
    t,
    fc.property(keySets, (set) => {
      const json = JSON.stringify(set);
      return upgradeKeySet(set) === set && upgradedJson('signingKeySet', json) === null && JSON.stringify(upgradeKeySet(JSON.parse(json))) === json;
    }),
    300,
  );
});

t.test('a record in an older shape reads as the older readers read it, and is current after one upgrade', async (t) => {
  holds(
    t,
    fc.property(clientRecords, (client) => {
      const older = withoutResourceServer(client);
      const { resourceServer, dpopBoundAccessTokens, ...rest } = JSON.parse(upgradedJson('client', JSON.stringify(older))!) as ClientRecord;
      return (
        resourceServer === mayIntrospectAsBefore(older) &&
        dpopBoundAccessTokens === false &&
        isDeepStrictEqual(rest, older) &&
        isDeepStrictEqual(upgradeClient(older), { ...older, resourceServer, dpopBoundAccessTokens }) &&
        upgradedJson('client', JSON.stringify({ ...rest, resourceServer, dpopBoundAccessTokens })) === null
      );
    }),
    200,
  );
  holds(
    t,
    // A client stored before DPoP binding existed may send a proof, and need not.
    fc.property(clientRecords, (client) => {
      const older = withoutDpopBinding(client);
      const upgraded = JSON.parse(upgradedJson('client', JSON.stringify(older))!) as ClientRecord;
      return (
        isDeepStrictEqual(upgraded, { ...older, dpopBoundAccessTokens: false }) &&
        isDeepStrictEqual(upgradeClient(older), upgraded) &&
        upgradedJson('client', JSON.stringify(upgraded)) === null
      );
    }),
    200,
  );
  holds(
    t,
    // Every client stored before the method existed had a secret, sent by Basic or in the form alike.
    fc.property(
      clientRecords.filter((client) => client.tokenEndpointAuthMethod !== 'private_key_jwt'),
      fc.boolean(),
      (client, keepResourceServer) => {
        const older = withoutAuthMethod(client, keepResourceServer);
        const upgraded = JSON.parse(upgradedJson('client', JSON.stringify(older))!) as ClientRecord;
        const { tokenEndpointAuthMethod, jwks, resourceServer, dpopBoundAccessTokens, ...rest } = upgraded;
        const { resourceServer: _r, ...olderRest } = older;
        return (
          tokenEndpointAuthMethod === 'client_secret_basic' &&
          dpopBoundAccessTokens === false &&
          isDeepStrictEqual(jwks, []) &&
          resourceServer === mayIntrospectAsBefore(older) &&
          isDeepStrictEqual(rest, olderRest) &&
          isDeepStrictEqual(upgradeClient(older), upgraded) &&
          upgradedJson('client', JSON.stringify(upgraded)) === null
        );
      },
    ),
    200,
  );
  holds(
    t,
    fc.property(serviceAccountRecords, accountOmissions, (account, omit) => {
      const older = olderAccount(account, omit);
      const rewritten = upgradedJson('serviceAccount', JSON.stringify(older));
      const wasCurrent = !omit.expiresAt && omit.publicKeys === 'kept';
      const { expiresAt, publicKeys, ...rest } = rewritten === null ? account : (JSON.parse(rewritten) as ServiceAccountRecord);
      const { expiresAt: _e, publicKeys: _k, ...olderRest } = older;
      return (
        (rewritten === null) === wasCurrent &&
        isDeepStrictEqual(publicKeys, accountKeysAsBefore(older)) &&
        expiresAt === expiryAsBefore(older) &&
        isDeepStrictEqual(rest, olderRest) &&
        upgradedJson('serviceAccount', rewritten ?? JSON.stringify(account)) === null
      );
    }),
    300,
  );
  holds(
    t,
    fc.property(olderKeySets, (older) => {
      const json = JSON.stringify(older);
      const rewritten = upgradedJson('signingKeySet', json);
      return (
        rewritten !== null &&
        isCurrentKeySet(JSON.parse(rewritten)) &&
        isDeepStrictEqual(JSON.parse(rewritten), keySetAsBefore(json)) &&
        isDeepStrictEqual(upgradeKeySet(older), keySetAsBefore(json)) &&
        upgradedJson('signingKeySet', rewritten) === null
      );
    }),
    300,
  );
});

t.test('stored text that is no record of the kind is left alone (null), and nothing throws', async (t) => {
  holds(
    t,
    fc.property(fc.constantFrom(...KINDS), fc.oneof(fc.string(), fc.json()), (kind, raw) => {
      const upgraded = upgradedJson(kind, raw);
      if (upgraded === null) return true;
      // Only an object is ever upgraded, and the result is an object again.
      const before: unknown = JSON.parse(raw);
      const after: unknown = JSON.parse(upgraded);
      return typeof before === 'object' && before !== null && !Array.isArray(before) && typeof after === 'object' && after !== null;
    }),
    1000,
  );
  for (const kind of KINDS) {
    for (const raw of ['', 'not json', '{"half', 'null', '[]', '"text"', '42', 'true'])
      t.equal(upgradedJson(kind, raw), null, `${kind}: ${JSON.stringify(raw)}`);
  }
  t.equal(upgradedJson('signingKeySet', '{"keys":[]}'), null, 'an object without an active key is not a key set');
  t.equal(upgradedJson('signingKeySet', '{"active":"kid"}'), null);
  t.equal(upgradedJson('serviceAccount', '{"id":"x"}'), null, 'an account without its top-level key has nothing to fall back on');
});

t.test('examples: each field an older version left out', async (t) => {
  const client = clientRecord({ resourceServer: true });
  const olderClient = withoutResourceServer(client);
  t.same(
    upgradeClient(olderClient),
    { ...olderClient, resourceServer: false, dpopBoundAccessTokens: false },
    'a client stored before resourceServer is no resource server',
  );
  t.equal(upgradeClient(client), client);
  const { tokenEndpointAuthMethod: _m, jwks: _j, dpopBoundAccessTokens: _d, ...beforeKeys } = client;
  t.same(
    upgradeClient(beforeKeys),
    { ...beforeKeys, tokenEndpointAuthMethod: 'client_secret_basic', jwks: [], dpopBoundAccessTokens: false },
    'a client stored before tokenEndpointAuthMethod and jwks is a secret client without keys',
  );
  const { dpopBoundAccessTokens: _b, ...beforeBinding } = client;
  t.same(
    upgradeClient(beforeBinding),
    { ...beforeBinding, dpopBoundAccessTokens: false },
    'a client stored before dpopBoundAccessTokens may send a DPoP proof, and need not',
  );

  const account = serviceAccountRecord({ createdAt: '2025-05-05T05:05:05.000Z' });
  const { expiresAt: _e, publicKeys: _k, ...olderAccountRecord } = account;
  t.same(
    upgradeServiceAccount(olderAccountRecord),
    {
      ...olderAccountRecord,
      expiresAt: null,
      publicKeys: [
        { publicKey: account.publicKey, publicKeyBytes: account.publicKeyBytes, fingerprint: account.fingerprint, addedAt: '2025-05-05T05:05:05.000Z' },
      ],
    },
    'no expiry: never; no key list: the top-level key, added when the account was made',
  );
  t.same(upgradeServiceAccount({ ...account, publicKeys: [] }).publicKeys, account.publicKeys, 'an empty key list reads as the top-level key too');
  const expiring = serviceAccountRecord({ expiresAt: '2030-01-01T00:00:00.000Z' });
  t.equal(upgradeServiceAccount(expiring), expiring);

  const key = (kid: string, createdAt: string): StoredKey => ({ kid, alg: 'EdDSA', privateJwk: { kty: 'OKP' }, publicJwk: { kty: 'OKP' }, createdAt });
  const active = key('active', '2026-02-01T00:00:00.000Z');
  const previous = key('previous', '2026-01-01T00:00:00.000Z');
  t.same(
    upgradeKeySet({ active, previous }),
    { active, retired: [{ ...previous, retiredAt: '2026-02-01T00:00:00.000Z' }], withdrawn: [] },
    'the first form: the previous key was rotated out when the active one was made',
  );
  t.same(upgradeKeySet({ active, previous: null }), { active, retired: [], withdrawn: [] });
  t.same(upgradeKeySet({ active }), { active, retired: [], withdrawn: [] });
  const retired = [{ ...previous, retiredAt: '2026-02-01T00:00:00.000Z' }];
  t.same(upgradeKeySet({ active, retired }), { active, retired, withdrawn: [] }, 'a set from before withdrawals has none');
  t.equal(
    upgradedJson('signingKeySet', JSON.stringify({ active, previous })),
    JSON.stringify({ active, retired: [{ ...previous, retiredAt: active.createdAt }], withdrawn: [] }),
    'the rewritten set holds exactly the current fields, `previous` gone',
  );
});
