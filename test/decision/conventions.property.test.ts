// The conventions parse what an edge proxy sends: whatever the header values, describing a request
// either yields an origin-form URL and an HTTP method, or a GatewayError that names the problem.
// Nothing else escapes; nginx's and Caddy's descriptions never claim to carry the body, and a body
// the edge cannot rule out is never described as absent.
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import t from 'tap';
import { CONVENTION_LIST } from '../../gateway/decision/conventions.js';
import { isGatewayError } from '../../gateway/errors.js';
import { holds } from '../helpers/property.js';

const NAMES = [
  'x-forwarded-for',
  'x-original-method',
  'x-original-protocol',
  'x-original-unframed-bodies',
  'x-original-uri',
  'x-original-content-length',
  'x-original-transfer-encoding',
  'x-forwarded-method',
  'x-forwarded-uri',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-envoy-auth-partial-body',
  'content-length',
  'transfer-encoding',
  'content-digest',
  'host',
];

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('GET', 'POST', '/v1/balance?x=1', '0', '12', 'chunked', 'false', 'true', 'https', '', 'HTTP/1.1', 'HTTP/2.0', 'refused'),
);
const headers = fc.dictionary(fc.constantFrom(...NAMES), headerValue, { maxKeys: NAMES.length });
const path = fc.oneof(
  fc.constantFrom('', '/', '/v1/balance', '/v1/a?b=c'),
  fc.string({ maxLength: 30 }).map((s) => `/${s}`),
);

function fakeRequest(prefix: string, suffix: string, method: string, values: Record<string, string>): IncomingMessage {
  return { url: `${prefix}${suffix}`, method, headers: values, rawHeaders: Object.entries(values).flat() } as unknown as IncomingMessage;
}

t.test('every convention describes a request or refuses it with a catalog error', async (t) => {
  for (const convention of CONVENTION_LIST) {
    holds(
      t,
      fc.property(headers, path, fc.constantFrom('GET', 'POST', 'PATCH'), (values, suffix, method) => {
        let described;
        try {
          described = convention.describe(fakeRequest(convention.prefix, suffix, method, values));
        } catch (error) {
          return isGatewayError(error) && ['decision_request_invalid', 'body_partial', 'bad_request'].includes(error.code) && error.message.length > 0;
        }
        const originForm = described.url.startsWith('/');
        const httpMethod = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(described.method);
        const withheldWhenNginx = !['nginx', 'caddy'].includes(convention.name) || described.body === 'withheld';
        const lengthKnown = Number.isSafeInteger(described.declaredLength) && described.declaredLength >= 0;
        return originForm && httpMethod && withheldWhenNginx && lengthKnown;
      }),
      500,
    );
  }
});

t.test('a body the edge proxy says came, or cannot rule out, is never described as absent', async (t) => {
  const nginx = CONVENTION_LIST.find((c) => c.name === 'nginx')!;
  const protocol = fc.constantFrom('HTTP/1.0', 'HTTP/1.1', 'HTTP/2.0', 'HTTP/3.0');
  holds(
    t,
    fc.property(fc.integer({ min: 1, max: 1e9 }), fc.boolean(), protocol, (length, chunked, spoken) => {
      const values: Record<string, string> = {
        'x-forwarded-for': '198.51.100.7',
        'x-original-method': 'GET',
        'x-original-uri': '/v1/balance',
        'x-original-protocol': spoken,
        ...(chunked ? { 'x-original-transfer-encoding': 'chunked' } : { 'x-original-content-length': String(length) }),
      };
      return nginx.describe(fakeRequest('/nginx', '', 'GET', values)).hasBody;
    }),
    300,
  );
  // No length and no Transfer-Encoding: no body over HTTP/1.x, an unknown one (taken as present) otherwise.
  holds(
    t,
    fc.property(fc.string({ maxLength: 12 }), fc.constantFrom('GET', 'HEAD', 'DELETE', 'POST'), (spoken, method) => {
      const values: Record<string, string> = {
        'x-forwarded-for': '198.51.100.7',
        'x-original-method': method,
        'x-original-uri': '/v1/balance',
        'x-original-protocol': spoken,
      };
      let described;
      try {
        described = nginx.describe(fakeRequest('/nginx', '', 'GET', values));
      } catch (error) {
        return isGatewayError(error) && spoken.trim() === '';
      }
      const http1 = /^HTTP\/1\.[01]$/i.test(spoken.trim());
      return described.hasBody === (!http1 || method === 'POST');
    }),
    300,
  );
  const caddy = CONVENTION_LIST.find((c) => c.name === 'caddy')!;
  holds(
    t,
    fc.property(fc.integer({ min: 1, max: 1e9 }), (length) => {
      const values: Record<string, string> = {
        'x-forwarded-for': '198.51.100.7',
        'x-forwarded-method': 'GET',
        'x-forwarded-uri': '/v1/balance',
        'x-forwarded-host': 'api.test',
        'x-original-unframed-bodies': 'refused',
        'x-original-content-length': String(length),
      };
      return caddy.describe(fakeRequest('/caddy', '', 'GET', values)).hasBody;
    }),
    300,
  );
});
