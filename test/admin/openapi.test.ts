// The OpenAPI document describes routes that exist: every documented operation is answered by
// its listener (not with route_not_found), and its error codes are the catalog's.
import t from 'tap';
import { ERRORS } from '../../gateway/errors.js';
import { startTestGateway } from '../helpers/gateway.js';

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: { Error: { properties: { error: { enum: string[] } } } } };
}

const METHODS = ['get', 'post', 'delete'] as const;

t.test('every documented operation exists, on the listener the document names', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const response = await tg.gateway.adminApp.inject({ url: '/admin/openapi.json' });
  t.equal(response.statusCode, 200);
  const doc = response.json<Doc>();
  t.equal(doc.openapi, '3.1.0');
  t.same(doc.components.schemas.Error.properties.error.enum, Object.keys(ERRORS));

  const operations = Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => m in item).map((method) => ({ path, method })));
  t.ok(operations.length >= 15, `${operations.length} operations documented`);
  for (const { path, method } of operations) {
    const app = path.startsWith('/admin/') ? tg.gateway.adminApp : tg.gateway.publicApp;
    const url = path.replace(/\{[^}]+\}/g, 'does-not-exist');
    const answer = await app.inject({ method: method.toUpperCase() as 'GET', url });
    t.notOk(answer.statusCode === 404 && answer.json<{ error: string }>().error === 'route_not_found', `${method.toUpperCase()} ${path} is routed`);
    if (path.startsWith('/admin/v1/')) t.equal(answer.statusCode, 401, `${method.toUpperCase()} ${path} needs the admin token`);
  }
});
