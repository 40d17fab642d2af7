// Whatever JSON a caller sends to the create routes, the answer is a 201 or the catalog's 400 naming
// a field: never a 500, never another shape. Bodies are random JSON, and near-valid ones (each field
// right, wrong or missing, plus stray fields) and valid ones, so that both answers are exercised.
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { sshPublicKeyLine } from '../../gateway/signing/index.js';
import { loadPolicies } from '../../gateway/policy/policy-loader.js';
import { REPO_ROOT, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { holdsAsync } from '../helpers/property.js';
import { adminInject } from '../helpers/signing.js';

/** The vocabulary of the shipped policy, which the test gateways enforce. */
const { vocabulary } = loadPolicies(`${REPO_ROOT}policies`);
const SCOPES = [...vocabulary.scopes.keys()];
const PERMISSION_NAMES = [...vocabulary.permissions.keys()];

const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ minLength: 190, maxLength: 210 }));
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), anyText);
/** A field's value: usually of the right kind, sometimes anything at all. */
const either = <T>(right: fc.Arbitrary<T>) => fc.oneof({ arbitrary: right, weight: 3 }, { arbitrary: anyJson, weight: 1 });
const names = (vocabulary: readonly string[]) =>
  fc.array(fc.oneof({ arbitrary: fc.constantFrom(...vocabulary), weight: 4 }, { arbitrary: anyJson, weight: 1 }), { maxLength: 4 });
const accountId = fc.oneof(fc.constant(null), fc.string({ unit: fc.constantFrom(' ', 'a', '~', '\n', '\u00e9'), minLength: 0, maxLength: 8 }));
const strayFields = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('client_id', 'id', 'access_id', 'secret_hash', '__proto__', 'constructor')),
  anyJson,
  { maxKeys: 2 },
);

const { publicKey: ed25519, privateKey } = generateKeyPairSync('ed25519');
const publicKeys = fc.oneof(
  fc.constant(sshPublicKeyLine(privateKey, 'k')),
  fc.constant(ed25519.export({ format: 'jwk' })),
  fc.constant(String(ed25519.export({ format: 'pem', type: 'spki' }))),
  fc.record({ kty: either(fc.constant('OKP')), crv: either(fc.constant('Ed25519')), x: either(fc.base64String()) }, { requiredKeys: [] }),
  fc.string().map((s) => `ssh-ed25519 ${s}`),
);
const allowedIps = fc.array(
  fc.oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 40 })).map(([ip, bits]) => `${ip}/${bits}`),
    anyText,
  ),
  { maxLength: 3 },
);
const expiry = fc.oneof(
  fc.constant(null),
  fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.string({ unit: fc.constantFrom('2', '0', '3', '-', 'T', ':', 'Z', '+'), maxLength: 24 }),
);

/** Valid bodies, near-valid ones (fields right, wrong or missing, plus stray fields), and any JSON. */
function bodies(valid: fc.Arbitrary<Record<string, unknown>>, body: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  const nearValid = fc.tuple(body, fc.option(strayFields, { freq: 4 })).map(([fields, strays]) => ({ ...fields, ...strays }));
  return fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: nearValid, weight: 3 }, { arbitrary: anyJson, weight: 1 });
}

const plainText = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,30}$/);
/** Visible ASCII with inner spaces only (account_id: no leading or trailing space). */
const validAccountId = fc.stringMatching(/^[!-~]([ -~]{0,20}[!-~])?$/);
const validClient = fc.record(
  { name: plainText, scopes: fc.subarray([...SCOPES], { minLength: 1 }), account_id: fc.option(validAccountId), resource_server: fc.boolean() },
  { requiredKeys: ['name', 'scopes'] },
);
const clientBodies = bodies(
  validClient,
  fc.record(
    { name: either(anyText), scopes: either(names(SCOPES)), account_id: either(accountId), resource_server: either(fc.boolean()) },
    { requiredKeys: [] },
  ),
);
const validServiceAccount = fc.record(
  {
    description: plainText,
    public_key: fc.constantFrom<unknown>(
      sshPublicKeyLine(privateKey, 'k'),
      ed25519.export({ format: 'jwk' }),
      String(ed25519.export({ format: 'pem', type: 'spki' })),
    ),
    permissions: fc.subarray(PERMISSION_NAMES, { minLength: 1 }),
    allowed_ips: fc.array(fc.ipV4(), { minLength: 1, maxLength: 3 }),
    account_id: fc.option(validAccountId),
    expires_at: fc.option(
      fc.date({ min: new Date('2100-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    ),
  },
  { requiredKeys: ['description', 'public_key', 'permissions'] },
);
const serviceAccountBodies = bodies(
  validServiceAccount,
  fc.record(
    {
      description: either(anyText),
      public_key: either(publicKeys),
      permissions: either(names(PERMISSION_NAMES)),
      allowed_ips: either(allowedIps),
      account_id: either(accountId),
      expires_at: either(expiry),
    },
    { requiredKeys: [] },
  ),
);

/** One body sent as its JSON text: 201, or 400 with the catalog's body naming a field. */
async function answersCleanly(tg: TestGateway, url: string, body: unknown): Promise<boolean> {
  const text = JSON.stringify(body);
  const response = await adminInject(tg, { method: 'POST', url, payload: text, headers: { 'content-type': 'application/json' } });
  const answer = response.json<Record<string, unknown>>();
  if (response.statusCode === 201) return typeof (answer.client_id ?? answer.id) === 'string';
  if (response.statusCode !== 400) throw new Error(`${response.statusCode} for ${text}: ${response.body}`);
  // Prototype-poisoning keys are refused by the JSON parser, before any schema: bad_request.
  if (answer.error === 'bad_request') return /"(__proto__|constructor)"/.test(text);
  const field = answer.field;
  const shaped =
    answer.error === 'validation_error' && typeof field === 'string' && typeof answer.message === 'string' && answer.message.startsWith(`${field}: `);
  if (!shaped || Object.keys(answer).sort().join() !== 'error,field,message,request_id') throw new Error(`unexpected 400 for ${text}: ${response.body}`);
  return true;
}

for (const [url, bodies] of [
  ['/admin/v1/clients', clientBodies],
  ['/admin/v1/service-accounts', serviceAccountBodies],
] as const) {
  t.test(`POST ${url}: any JSON body gets a 201 or a 400 validation_error naming a field`, async (t) => {
    const tg = await startTestGateway(t, { store: 'embedded' });
    await holdsAsync(
      t,
      fc.asyncProperty(bodies, (body) => answersCleanly(tg, url, body)),
      300,
    );
    const created = (await adminInject(tg, { method: 'GET', url: `${url}?limit=1` })).json<Record<string, unknown[]>>();
    t.ok(
      Object.values(created).some((v) => Array.isArray(v) && v.length > 0),
      'some bodies were valid: the property saw both answers',
    );
  });
}

for (const [url, valid] of [
  ['/admin/v1/clients', validClient],
  ['/admin/v1/service-accounts', validServiceAccount],
] as const) {
  t.test(`POST ${url}: every valid body is created (the schema refuses nothing the contract allows)`, async (t) => {
    const tg = await startTestGateway(t, { store: 'embedded' });
    await holdsAsync(
      t,
      fc.asyncProperty(valid as fc.Arbitrary<Record<string, unknown>>, async (body) => {
        const response = await adminInject(tg, { method: 'POST', url, payload: body });
        if (response.statusCode !== 201) throw new Error(`${response.statusCode} for ${JSON.stringify(body)}: ${response.body}`);
      }),
      100,
    );
  });
}
