// The sign-in body is checked by its route schema: each mistake is a 400 validation_error naming
// its field, before any credential is compared or counted.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';

t.test('sign-in input errors name the field and what is wrong', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const cases: Array<[unknown, string, RegExp]> = [
    [{ token: tg.adminToken, remember: true }, 'remember', /^remember: is not a known field \(known: token, username, password\)$/],
    [{ token: '' }, 'token', /^token: is required$/],
    [{ token: 'x'.repeat(1025) }, 'token', /^token: must be at most 1024 characters$/],
    [{ username: 'ops' }, 'password', /^password: is required$/],
    [{ password: 'secret' }, 'username', /^username: is required$/],
    [{ token: 7 }, 'token', /^token: must be a string$/],
    [[tg.adminToken], 'body', /^body: must be a JSON object$/],
  ];
  for (const [payload, field, message] of cases) {
    const response = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: payload as object });
    t.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 40));
    const body = response.json<{ error: string; field: string; message: string }>();
    t.equal(body.error, 'validation_error');
    t.equal(body.field, field);
    t.match(body.message, message);
    t.equal(response.headers['set-cookie'], undefined, 'no session');
  }
  const signedIn = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: tg.adminToken } });
  t.equal(signedIn.statusCode, 200, 'the right token still signs in');
});

t.test('an unknown field with a long name is not echoed whole', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const name = 'x'.repeat(10_000);
  const response = await tg.gateway.adminApp.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { token: tg.adminToken, [name]: 1 } });
  t.equal(response.statusCode, 400);
  const body = response.json<{ error: string; field: string; message: string }>();
  t.equal(body.error, 'validation_error');
  t.equal(body.field, `${'x'.repeat(57)}...`);
  t.ok(response.body.length < 600, `the answer stays short (${response.body.length} bytes)`);
});
