// The public listener's JSON parser is the same depth-bounded one: the OAuth endpoints read forms,
// but a JSON body sent to them is parsed, and one nested thousands of levels deep is refused as
// nested too deeply (in the OAuth error shape those endpoints answer with), never a 500.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { deepJson, NESTINGS, tooDeepMessage } from './deep-json.js';

const OAUTH_ENDPOINTS = ['/v1/oauth/token', '/v1/oauth/revoke', '/v1/oauth/introspect'];

t.test('OAuth endpoints: a deep JSON body is 400 invalid_request saying it is nested too deeply', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded', config: { oauth_max_body_bytes: 1_048_576 } });
  for (const levels of [5000, 100_000]) {
    for (const nesting of NESTINGS) {
      for (const url of OAUTH_ENDPOINTS) {
        const label = `${url}, ${levels} ${nesting}`;
        const started = performance.now();
        const response = await tg.gateway.publicApp.inject({
          method: 'POST',
          url,
          payload: `{"client_id":${deepJson(levels, nesting)}}`,
          headers: { 'content-type': 'application/json' },
        });
        const elapsed = performance.now() - started;
        t.equal(response.statusCode, 400, `${label}: ${response.body.slice(0, 200)}`);
        const body = response.json();
        const message = tooDeepMessage('client_id');
        // RFC 6749 section 5.2: a 400 that is not one of its codes is invalid_request.
        t.same(body, { error: 'invalid_request', message, error_description: message, request_id: body.request_id }, label);
        t.equal(response.headers['cache-control'], 'no-store', label);
        t.ok(elapsed < 2000, `${label}: answered in ${Math.round(elapsed)} ms`);
      }
    }
  }
  const discovery = await tg.gateway.publicApp.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
  t.equal(discovery.statusCode, 200, 'the listener still answers');
  t.notMatch(tg.logs.text, /"level":50/, 'no request failed with an internal error');
});
