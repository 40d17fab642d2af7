// Property tests of the FAPI request signature check (a message_signing route), through the gateway
// in process: whatever Signature-Input and Signature a client sends, the answer is a 401 with a
// signature or digest code and the upstream is untouched; a valid signature with any one of its
// parameters or covered components changed, or any byte of its value changed, is never let through.
import fc from 'fast-check';
import t from 'tap';
import { signFapiRequest } from '@access-gateway/signing';
import { claimsFor, keyPair, signAssertion } from '../helpers/client-assertion.js';
import { startTestGateway } from '../helpers/gateway.js';
import { createClient, tokenRequest } from '../helpers/oauth.js';
import { policyDirWith } from '../helpers/policy-dir.js';
import { holdsAsync } from '../helpers/property.js';

const POLICY = 'upstream: public\nauth: bearer\nmessage_signing: fapi-2\nroutes:\n  - { method: POST, path: /v1/fapi/payments, scopes: [sales] }\n';
const URL_SIGNED = 'http://gw.test/v1/fapi/payments';
const BODY = '{"amount":"1.00"}';

t.test('no Signature-Input or Signature a client sends gets past the check', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { policies_dir: policyDirWith(t, { 'fapi.yaml': POLICY }) } });
  const key = keyPair('Ed25519', 'k1');
  const client = await createClient(tg, ['sales'], { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } });
  const assertion = signAssertion({ alg: 'EdDSA', kid: 'k1' }, claimsFor(client.client_id, tg.settings.issuer), key);
  const token = (
    await tokenRequest(tg, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    })
  ).json<{ access_token: string }>().access_token;
  const headers = { host: 'gw.test', authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const send = (extra: Record<string, string>) =>
    tg.gateway.publicApp.inject({ method: 'POST', url: '/v1/fapi/payments', headers: { ...headers, ...extra }, payload: BODY });
  const valid = () => signFapiRequest({ method: 'POST', url: URL_SIGNED, headers, body: BODY, privateKey: key.privateKey, keyid: 'k1' }).headers;

  const first = await send(valid());
  t.equal(first.statusCode, 200, 'a valid signature passes (the properties below change one)');

  const refused = async (extra: Record<string, string>) => {
    const before = tg.upstreams.public.received.length;
    const response = await send(extra);
    const code = response.json<{ error?: string }>().error ?? '';
    return response.statusCode === 401 && /^(signature_|digest_mismatch|nonce_replayed)/.test(code) && tg.upstreams.public.received.length === before;
  };

  const sfText = fc.stringMatching(/^[a-z0-9=(); "@:*?.,+/-]{0,80}$/);
  await holdsAsync(
    t,
    fc.asyncProperty(sfText, sfText, async (input, value) =>
      refused({ 'content-digest': valid()['content-digest']!, 'signature-input': input, signature: value }),
    ),
    150,
  );

  // One change to a valid signature: a parameter's or component's text, or a byte of the signature.
  await holdsAsync(
    t,
    fc.asyncProperty(fc.nat(), fc.stringMatching(/^[a-z0-9@"=;-]{1,12}$/), async (at, replacement) => {
      const signed = valid();
      const input = signed['signature-input']!;
      const position = at % input.length;
      const changed = input.slice(0, position) + replacement + input.slice(position + 1);
      fc.pre(changed !== input);
      return refused({ ...signed, 'signature-input': changed });
    }),
    150,
  );
  await holdsAsync(
    t,
    fc.asyncProperty(fc.nat(), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
      const signed = valid();
      const bytes = Buffer.from(/:([^:]+):/.exec(signed.signature!)![1]!, 'base64');
      bytes[at % bytes.length]! ^= flip;
      return refused({ ...signed, signature: `sig1=:${bytes.toString('base64')}:` });
    }),
    100,
  );
});
