// Signing keys fixed by configuration (GATEWAY_JWT_SIGNING_KEY_FILE) instead of generated ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from 'jose';
import t, { type Test } from 'tap';
import { buildGateway } from '../../gateway/app.js';
import { startTestGateway, testSettings } from '../helpers/gateway.js';
import { accessToken, createClient } from '../helpers/oauth.js';

async function privateJwk(kid: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { ...(await exportJWK(privateKey)), kid, alg };
}

function keyFile(t: Test, keys: JWK[] | string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'jwks.json');
  writeFileSync(file, typeof keys === 'string' ? keys : JSON.stringify({ keys }));
  return file;
}

t.test('tokens are signed with the active key of the file; the JWKS publishes both keys, public parts only', async (t) => {
  const file = keyFile(t, [await privateJwk('active-1'), await privateJwk('previous-0')]);
  const tg = await startTestGateway(t, { config: { jwt_signing_key_file: file } });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  t.equal(decodeProtectedHeader(token).kid, 'active-1');

  const jwks = (await tg.gateway.publicApp.inject({ url: '/.well-known/jwks.json' })).json<{ keys: JWK[] }>();
  t.same(
    jwks.keys.map((k) => k.kid),
    ['active-1', 'previous-0'],
  );
  for (const key of jwks.keys) t.equal(key.d, undefined, `${key.kid} has no private part`);

  const call = await tg.gateway.publicApp.inject({ url: '/v1/sales/1', headers: { authorization: `Bearer ${token}` } });
  t.equal(call.statusCode, 200);

  const rotate = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/signing-keys/rotate',
    headers: { authorization: `Bearer ${tg.adminToken}` },
  });
  t.equal(rotate.statusCode, 400);
  t.match(rotate.json(), { error: 'validation_error', message: 'Signing keys come from GATEWAY_JWT_SIGNING_KEY_FILE: rotate by replacing that file.' });
});

t.test('a bad key file stops the start with a message naming the setting', async (t) => {
  const { kid: _kid, ...withoutKid } = await privateJwk('x');
  const { d: _d, ...publicOnly } = await privateJwk('public-only');
  const cases: [string, JWK[] | string, RegExp][] = [
    ['not JSON', 'not json', /is not a readable JSON file/],
    ['no keys', [], /must be a JWKS with one or two private keys/],
    ['a key without kid', [withoutKid], /key 1 has no kid/],
    ['a key of an algorithm that is not allowed', [await privateJwk('es', 'ES256')], /key es has alg "ES256", not one of EdDSA/],
    ['a public key only', [publicOnly], /key public-only has no private part/],
  ];
  for (const [name, keys, message] of cases) {
    const file = keyFile(t, keys);
    const { settings } = await testSettings({
      store: 'embedded',
      publicUpstream: 'http://127.0.0.1:1',
      bankingUpstream: 'http://127.0.0.1:1',
      config: { jwt_signing_key_file: file },
    });
    await t.rejects(
      buildGateway(settings),
      { name: 'SettingsError', message: new RegExp(`^Invalid setting GATEWAY_JWT_SIGNING_KEY_FILE: .*${message.source}`) },
      name,
    );
  }
});
