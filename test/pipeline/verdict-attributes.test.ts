// The decision on the request's span (gateway/pipeline/verdict-attributes.ts): which auth method,
// allow or deny, the refusal's code, the route and who it was from; DPoP told apart from Bearer
// whether the request passed (a bound token's thumbprint) or not (the DPoP scheme it presented); an
// unsampled span is left alone. (test/ops/tracing.test.ts checks the same attributes end to end.)
import type { Span } from '@opentelemetry/api';
import t from 'tap';
import { GatewayError } from '../../gateway/errors.js';
import { recordVerdict } from '../../gateway/pipeline/verdict-attributes.js';
import type { IdentifiedRequest } from '../../gateway/pipeline/identify.js';
import type { Verdict } from '../../gateway/pipeline/verdict.js';
import type { Principal } from '../../gateway/pipeline/principal.js';

function recordingSpan(recording = true): Span & { attributes: Record<string, unknown> } {
  const attributes: Record<string, unknown> = {};
  const span = {
    attributes,
    isRecording: () => recording,
    setAttribute(key: string, value: unknown) {
      attributes[key] = value;
      return span;
    },
  };
  return span as unknown as Span & { attributes: Record<string, unknown> };
}

function identified(auth: 'bearer' | 'signature', authorization?: string): IdentifiedRequest {
  return {
    original: { method: 'GET', headers: authorization ? { authorization } : {} },
    route: { id: `${auth}:GET /v1/x`, auth, template: '/v1/x' },
  } as unknown as IdentifiedRequest;
}

function allowed(request: IdentifiedRequest, principal: Principal): Verdict {
  return { allowed: true, request, principal, identityHeaders: {}, responseFields: {}, body: undefined };
}

const refused = (request: IdentifiedRequest | undefined, code: 'invalid_token' | 'route_not_found'): Verdict => ({
  allowed: false,
  error: new GatewayError(code),
  request,
  responseFields: {},
});

t.test('allowed: the method, the route and who it was from', async (t) => {
  const cases: [Verdict, Record<string, unknown>][] = [
    [
      allowed(identified('bearer'), { kind: 'client', clientId: 'c1', accountId: null, scopes: ['sales'] }),
      { 'gateway.auth.method': 'bearer', 'gateway.auth.decision': 'allow', 'gateway.route': 'bearer:GET /v1/x', 'gateway.client_id': 'c1' },
    ],
    [
      allowed(identified('bearer', 'DPoP abc'), { kind: 'client', clientId: 'c2', accountId: null, scopes: [], jkt: 'thumb' }),
      { 'gateway.auth.method': 'dpop', 'gateway.client_id': 'c2' },
    ],
    [
      allowed(identified('signature'), {
        kind: 'service-account',
        account: { id: 'sa-id', accessId: 'SECRET-ACCESS-ID' },
        fingerprint: 'SHA256:x',
      } as unknown as Principal),
      { 'gateway.auth.method': 'signature', 'gateway.service_account_id': 'sa-id' },
    ],
  ];
  for (const [verdict, expected] of cases) {
    const span = recordingSpan();
    recordVerdict(span, verdict);
    t.match(span.attributes, expected);
    t.notOk(JSON.stringify(span.attributes).includes('SECRET-ACCESS-ID'), 'never the Access ID');
  }
});

t.test('refused: deny and the error code; DPoP by the scheme presented; before a route, no route', async (t) => {
  const bearer = recordingSpan();
  recordVerdict(bearer, refused(identified('bearer', 'Bearer x'), 'invalid_token'));
  t.same(bearer.attributes, {
    'gateway.route': 'bearer:GET /v1/x',
    'gateway.auth.method': 'bearer',
    'gateway.auth.decision': 'deny',
    'gateway.auth.reason': 'invalid_token',
  });
  const dpop = recordingSpan();
  recordVerdict(dpop, refused(identified('bearer', 'dpop x'), 'invalid_token'));
  t.equal(dpop.attributes['gateway.auth.method'], 'dpop');
  const unrouted = recordingSpan();
  recordVerdict(unrouted, refused(undefined, 'route_not_found'));
  t.same(unrouted.attributes, { 'gateway.auth.decision': 'deny', 'gateway.auth.reason': 'route_not_found' });
});

t.test('an unsampled span gets nothing', async (t) => {
  const span = recordingSpan(false);
  recordVerdict(span, refused(identified('bearer'), 'invalid_token'));
  t.same(span.attributes, {});
});
