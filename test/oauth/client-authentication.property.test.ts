// Property tests of client authentication at POST /v1/oauth/token: arbitrary Authorization values,
// form fields and content types never get a 5xx and always get the OAuth error body; Basic
// credentials encoded as RFC 6749 2.3.1 says read back to the same id and secret.
import type { FastifyRequest } from 'fastify';
import fc from 'fast-check';
import t from 'tap';
import { clientCredentialsOf } from '../../gateway/oauth/client-authentication.js';
import { startTestGateway } from '../helpers/gateway.js';
import { createClient } from '../helpers/oauth.js';
import { holds, holdsAsync } from '../helpers/property.js';

// Failures are spread over random addresses and limits are high: the throttle is not under test here.
const CONFIG = { throttle_max_failures: 100_000, throttle_max_failures_per_address: 100_000, throttle_max_failures_per_credential: 1_000_000 };
const OAUTH_ERRORS: Record<string, number> = { invalid_request: 400, unsupported_grant_type: 400, invalid_scope: 400, auth_error: 401, too_many_requests: 429 };

/** Form encoding (application/x-www-form-urlencoded), as RFC 6749 2.3.1 asks before Base64. */
const formEncode = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);
const basic = (id: string, secret: string) => Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64');

/** Header-safe text: what an HTTP/1.1 parser hands over (tab, visible ASCII, obs-text as Latin-1). */
const headerSafe = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const idLike = fc.oneof(
  fc.uuid(),
  fc.constantFrom('', ':', '%', '%zz', '+', 'a:b', '00000000-0000-4000-8000-000000000000'),
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 129, maxLength: 140 }),
);
const authorization = fc.oneof(
  fc.tuple(idLike, fc.string({ maxLength: 30 })).map(([id, secret]) => `Basic ${basic(id, secret)}`),
  fc.tuple(idLike, fc.string({ maxLength: 30 })).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
  fc
    .tuple(
      fc.constantFrom('Basic', 'basic', 'BASIC', 'Bearer', 'Digest', ''),
      fc.constantFrom(' ', '  ', '', '\t'),
      fc.oneof(fc.base64String({ maxLength: 60 }), headerSafe),
    )
    .map(([s, sp, v]) => `${s}${sp}${v}`),
  fc.uint8Array({ maxLength: 48 }).map((b) => `Basic ${Buffer.from(b).toString('base64')}`),
  headerSafe,
);
const field = fc.constantFrom('client_id', 'client_secret', 'grant_type', 'scope', 'token', 'x', 'client_id[]', '__proto__', 'constructor');
const fieldValue = fc.oneof(idLike, fc.constantFrom('client_credentials', 'password', 'sales', 'sales  stats', ' ', 'fly'), fc.string({ maxLength: 30 }));
const body = fc.oneof(
  fc.array(fc.tuple(field, fieldValue), { maxLength: 5 }).map((pairs) => new URLSearchParams(pairs).toString()),
  fc.string({ maxLength: 80 }),
  fc.constantFrom('client_id=%zz', 'client_id=a&client_id=b', '=&=&', '&&&', 'a=%', '%%'),
);
const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  undefined,
);
const address = fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 0, max: 255 })).map(([a, b]) => `10.99.${a}.${b}`);

t.test('arbitrary client authentication gets an OAuth error body, never a 5xx', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  await holdsAsync(
    t,
    fc.asyncProperty(fc.option(authorization), body, contentType, address, async (auth, payload, type, remoteAddress) => {
      const headers: Record<string, string> = {};
      if (auth !== null) headers.authorization = auth;
      if (type !== undefined) headers['content-type'] = type;
      const response = await tg.gateway.publicApp.inject({ method: 'POST', url: '/v1/oauth/token', headers, payload, remoteAddress });
      const where = `${JSON.stringify({ auth, payload, type })} -> ${response.statusCode} ${response.body}`;
      if (response.statusCode >= 500) throw new Error(where);
      const answer = response.json<Record<string, unknown>>();
      if (Object.keys(answer).sort().join() !== 'error,error_description,message,request_id') throw new Error(`not the OAuth error body: ${where}`);
      if (typeof answer.request_id !== 'string' || answer.request_id === '') throw new Error(`request_id: ${where}`);
      if (OAUTH_ERRORS[answer.error as string] !== response.statusCode) throw new Error(`unexpected code or status: ${where}`);
      if (answer.message !== answer.error_description || typeof answer.message !== 'string' || answer.message === '') throw new Error(`message: ${where}`);
      if (response.headers['cache-control'] !== 'no-store') throw new Error(`cacheable: ${where}`);
    }),
    300,
  );
  t.same(tg.upstreams.public.received, [], 'nothing reached an upstream');
});

t.test('encoded id and secret read back unchanged', async (t) => {
  // Any text (ids of other servers, secrets with ":", "%", "+" or non-ASCII) survives the encoding.
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: fc.constantFrom(':', '%', '+', ' ', '=', '&', 'a'), maxLength: 10 }),
  );
  holds(
    t,
    fc.property(
      text.filter((s) => s !== '' && s.length <= 128),
      text,
      fc.constantFrom('Basic ', 'basic ', 'BASIC  '),
      fc.constantFrom('', ' ', '  '),
      (id, secret, scheme, trailing) => {
        const request = { headers: { authorization: `${scheme}${basic(id, secret)}${trailing}` } } as unknown as FastifyRequest;
        const read = clientCredentialsOf(request, {});
        if (read.method !== 'client_secret_basic' || read.clientId !== id || read.clientSecret !== secret) {
          throw new Error(`${JSON.stringify([id, secret])} read back as ${JSON.stringify(read)}`);
        }
      },
    ),
    300,
  );
});

t.test('real credentials in any accepted Basic spelling get a token', async (t) => {
  const tg = await startTestGateway(t, { config: CONFIG });
  const client = await createClient(tg, ['sales']);
  // Percent-encoding any character of the id or secret is still the same form-encoded value.
  const spelled = (text: string) =>
    fc
      .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
      .map((flags) => [...text].map((c, i) => (flags[i] ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join(''));
  await holdsAsync(
    t,
    fc.asyncProperty(spelled(client.client_id), spelled(client.client_secret), fc.constantFrom('Basic ', 'basic ', 'BASIC   '), async (id, secret, scheme) => {
      const authorization = `${scheme}${Buffer.from(`${id}:${secret}`).toString('base64')}`;
      const response = await tg.gateway.publicApp.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
      if (response.statusCode !== 200) throw new Error(`${authorization}: ${response.statusCode} ${response.body}`);
    }),
    40,
  );
});
