// Credential lifecycle of service accounts: an expires_at after which the Access ID gets 401
// credential_expired (the upstream untouched, no nonce written), and key rotation (at most two keys,
// both verify while present, the removed one is refused, the Access ID never changes). On both stores.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { parsePublicKeyInput } from '../../gateway/service-accounts/public-key-input.js';
import { startTestGateway } from '../helpers/gateway.js';
import { adminInject, authFailures, createServiceAccount, signedInject, type TestServiceAccount } from '../helpers/signing.js';

type KeyView = { public_key: string; fingerprint: string; added_at: string; last_used_at: string | null };
type AccountView = { id: string; access_id_hint: string; public_key: string; fingerprint: string; public_keys: KeyView[]; expires_at: string | null };

const newKey = () => generateKeyPairSync('ed25519').privateKey;
const fingerprintOf = (line: string) => parsePublicKeyInput(line).fingerprint;

for (const store of ['redis', 'embedded'] as const) {
  t.test(`${store} store`, async (t) => {
    const tg = await startTestGateway(t, { store });

    t.test('expires_at: shown by the admin API, null when none', async (t) => {
      const never = await createServiceAccount(tg);
      t.equal(never.account.expires_at, null);
      const at = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const later = await createServiceAccount(tg, { expires_at: at });
      t.equal(later.account.expires_at, at.replace('Z', '.000Z'));
      const shown = (await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${later.account.id}` })).json<AccountView>();
      t.equal(shown.expires_at, later.account.expires_at);
      t.equal((await signedInject(tg, later, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'works before it');
    });

    t.test('after expires_at: 401 credential_expired, upstream untouched, nonce not consumed', async (t) => {
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      const sa = await createServiceAccount(tg, { expires_at: expiresAt });
      t.equal((await signedInject(tg, sa, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'works until then');
      await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 50);
      const contacted = tg.upstreams.banking.received.length;
      const before = await authFailures(tg, 'credential_expired');
      const nonce = `expired-${Date.now()}`;
      const response = await signedInject(tg, sa, { method: 'GET', url: '/v1/balance', sign: { nonce } });
      t.equal(response.statusCode, 401, response.body);
      t.equal(response.json().error, 'credential_expired');
      t.ok(response.headers['accept-signature'], 'a 401 like the others');
      t.equal(tg.upstreams.banking.received.length, contacted, 'the upstream was not contacted');
      t.equal(await authFailures(tg, 'credential_expired'), before + 1, 'counted by reason');
      t.equal((await tg.gateway.store.serviceAccountForRequest(sa.account.access_id, nonce)).nonceUsed, false, 'the nonce was not written');
      const wrongKey = await signedInject(tg, { ...sa, privateKey: newKey() }, { method: 'GET', url: '/v1/balance' });
      t.equal(wrongKey.json().error, 'signature_invalid', 'without a valid signature, expiry is not revealed');
    });

    t.test('expires_at validation: a 400 naming the field, nothing written', async (t) => {
      const publicKey = sshPublicKeyLine(newKey(), 'v');
      for (const [value, message] of [
        ['2020-01-01T00:00:00Z', /^expires_at: must be in the future/],
        [new Date(Date.now() - 1000).toISOString(), /^expires_at: must be in the future/],
        ['2030-01-01', /^expires_at: must be an RFC 3339 UTC timestamp/],
        ['2030-01-01T00:00:00+02:00', /^expires_at: must be an RFC 3339 UTC timestamp/],
        ['2030-02-30T00:00:00Z', /^expires_at: "2030-02-30T00:00:00Z" is not a real date/],
        ['tomorrow', /^expires_at: must be an RFC 3339/],
        [1893456000, /^expires_at: must be an RFC 3339/],
      ] as const) {
        const response = await adminInject(tg, {
          method: 'POST',
          url: '/admin/v1/service-accounts',
          payload: { description: 'x', public_key: publicKey, permissions: ['view_balance'], expires_at: value },
        });
        t.equal(response.statusCode, 400, `${JSON.stringify(value)}: ${response.body}`);
        t.equal(response.json().error, 'validation_error');
        t.equal(response.json().field, 'expires_at');
        t.match(response.json().message, message);
      }
      const listed = (await adminInject(tg, { method: 'GET', url: '/admin/v1/service-accounts' })).json<{ service_accounts: AccountView[] }>();
      t.notOk(
        listed.service_accounts.some((a) => a.public_key === publicKey),
        'nothing was written',
      );
    });

    t.test('key rotation: both keys verify, the removed one is refused, the Access ID is unchanged', async (t) => {
      const old: TestServiceAccount = await createServiceAccount(tg);
      const oldFingerprint = old.account.fingerprint;
      t.same(old.account.public_keys, [
        { public_key: old.account.public_key, fingerprint: oldFingerprint, added_at: old.account.created_at, last_used_at: null },
      ]);
      const nextPrivate = newKey();
      const nextLine = sshPublicKeyLine(nextPrivate, 'next');
      const next: TestServiceAccount = { account: old.account, privateKey: nextPrivate };

      t.equal(
        (await signedInject(tg, next, { method: 'GET', url: '/v1/balance' })).json().error,
        'signature_invalid',
        'the new key does not verify before it is added',
      );
      // Any accepted form: here the PEM SPKI of the new key.
      const pem = createPublicKey(nextPrivate).export({ type: 'spki', format: 'pem' }).toString();
      const added = await adminInject(tg, { method: 'POST', url: `/admin/v1/service-accounts/${old.account.id}/keys`, payload: { public_key: pem } });
      t.equal(added.statusCode, 201, added.body);
      const both = added.json<AccountView>();
      t.equal(both.public_key, old.account.public_key, 'public_key stays the first (oldest) key');
      t.equal(both.fingerprint, oldFingerprint);
      t.same(
        both.public_keys.map((k) => k.fingerprint),
        [oldFingerprint, fingerprintOf(nextLine)],
      );
      t.equal(both.public_keys[1]!.public_key, nextLine.replace(/ next$/, ''), 'stored as the ssh-ed25519 line');
      t.equal(both.access_id_hint, old.account.access_id_hint);
      t.match(tg.logs.text, /"audit":"credential.key_added"/);
      const addedLine = tg.logs.text.split('\n').find((l) => l.includes('"credential.key_added"'))!;
      t.match(addedLine, fingerprintOf(nextLine));
      t.notMatch(addedLine, 'BEGIN PUBLIC KEY', 'no key material in the audit line');

      t.equal((await signedInject(tg, old, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'the old key verifies');
      t.equal((await signedInject(tg, next, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'the new key verifies, with the same Access ID');

      const third = await adminInject(tg, {
        method: 'POST',
        url: `/admin/v1/service-accounts/${old.account.id}/keys`,
        payload: { public_key: sshPublicKeyLine(newKey()) },
      });
      t.equal(third.statusCode, 409);
      t.equal(third.json().error, 'service_account_key_limit');
      const again = await adminInject(tg, { method: 'POST', url: `/admin/v1/service-accounts/${old.account.id}/keys`, payload: { public_key: nextLine } });
      t.equal(again.statusCode, 409);
      t.equal(again.json().error, 'service_account_key_exists');

      const removed = await adminInject(tg, {
        method: 'DELETE',
        url: `/admin/v1/service-accounts/${old.account.id}/keys/${encodeURIComponent(oldFingerprint)}`,
      });
      t.equal(removed.statusCode, 200, removed.body);
      const rotated = removed.json<AccountView>();
      t.equal(rotated.fingerprint, fingerprintOf(nextLine), 'the remaining key is now the first');
      t.equal(rotated.public_key, nextLine.replace(/ next$/, ''));
      t.equal(rotated.public_keys.length, 1);
      t.match(tg.logs.text, /"audit":"credential.key_removed"/);

      const refused = await signedInject(tg, old, { method: 'GET', url: '/v1/balance' });
      t.equal(refused.statusCode, 401);
      t.equal(refused.json().error, 'signature_invalid', 'the removed key is refused');
      t.equal((await signedInject(tg, next, { method: 'GET', url: '/v1/balance' })).statusCode, 200, 'the new key still works');

      const last = await adminInject(tg, {
        method: 'DELETE',
        url: `/admin/v1/service-accounts/${old.account.id}/keys/${encodeURIComponent(rotated.fingerprint)}`,
      });
      t.equal(last.statusCode, 409);
      t.equal(last.json().error, 'service_account_last_key');
      const gone = await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/${old.account.id}/keys/${encodeURIComponent(oldFingerprint)}` });
      t.equal(gone.statusCode, 404, 'a key no longer held');
    });

    t.test('key routes: validation and unknown accounts', async (t) => {
      const sa = await createServiceAccount(tg);
      const keys = `/admin/v1/service-accounts/${sa.account.id}/keys`;
      const cases: [unknown, RegExp][] = [
        [{}, /^public_key: is required/],
        [{ public_key: 'not a key' }, /^public_key: is not a public key/],
        [{ public_key: newKey().export({ type: 'pkcs8', format: 'pem' }).toString() }, /^public_key: is a private key/],
        [{ public_key: sshPublicKeyLine(newKey()), description: 'x' }, /^description: is not a known field/],
      ];
      for (const [payload, message] of cases) {
        const response = await adminInject(tg, { method: 'POST', url: keys, payload: payload as object });
        t.equal(response.statusCode, 400, response.body);
        t.equal(response.json().error, 'validation_error');
        t.match(response.json().message, message);
      }
      const unknown = await adminInject(tg, {
        method: 'POST',
        url: '/admin/v1/service-accounts/sa_nope/keys',
        payload: { public_key: sshPublicKeyLine(newKey()) },
      });
      t.equal(unknown.statusCode, 404);
      t.equal(
        (await adminInject(tg, { method: 'DELETE', url: `/admin/v1/service-accounts/sa_nope/keys/${encodeURIComponent(sa.account.fingerprint)}` })).statusCode,
        404,
      );
      const shown = (await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${sa.account.id}` })).json<AccountView>();
      t.equal(shown.public_keys.length, 1, 'nothing was added');
      const noAuth = await tg.gateway.adminApp.inject({ method: 'POST', url: keys, payload: { public_key: sshPublicKeyLine(newKey()) } });
      t.equal(noAuth.statusCode, 401, 'the admin token is required');
    });
  });
}

t.test('a signed request records the last use of the key that signed it, which the admin API shows', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const old: TestServiceAccount = await createServiceAccount(tg);
  const nextPrivate = newKey();
  const added = await adminInject(tg, {
    method: 'POST',
    url: `/admin/v1/service-accounts/${old.account.id}/keys`,
    payload: { public_key: sshPublicKeyLine(nextPrivate, 'payroll-2027') },
  });
  t.equal(added.statusCode, 201, added.body);
  t.equal(added.json<{ public_keys: Array<{ last_used_at: string | null }> }>().public_keys[1]!.last_used_at, null, 'not used since it was added');
  t.equal((await signedInject(tg, { account: old.account, privateKey: nextPrivate }, { method: 'GET', url: '/v1/balance' })).statusCode, 200);
  // Closing writes the pending uses at once (they are otherwise written every few seconds).
  await tg.gateway.close();
  const account = (await tg.gateway.store.getServiceAccount(old.account.id))!;
  t.equal(account.publicKeys[0]!.lastUsedAt, undefined, 'the old key was not used');
  t.ok(account.publicKeys[1]!.lastUsedAt, 'the new key was');
  t.equal(account.publicKeys[1]!.lastUsedAt, account.lastUsedAt);
  t.equal(account.publicKeys[1]!.publicKey.split(' ')[2], 'payroll-2027', 'the comment is kept with the key');
});
