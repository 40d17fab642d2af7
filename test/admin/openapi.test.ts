// The OpenAPI document is generated from the route schemas: it is valid OpenAPI 3.1, it describes
// every admin API route (with its request and answer schemas) and only routes that exist, each
// under the server of the listener that answers it, and its error codes are the catalog's.
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { ERRORS } from '../../gateway/errors.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { adminInject, createServiceAccount } from '../helpers/signing.js';

interface Operation {
  security?: Array<Record<string, string[]>>;
  requestBody?: { required: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Schema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean | Schema;
}
type PathItem = { servers: Array<{ url: string }> } & Partial<Record<(typeof METHODS)[number], Operation>>;
interface Doc {
  openapi: string;
  servers: Array<{ url: string; description: string }>;
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Schema & { properties: { error: { enum: string[] } } }> };
}

const METHODS = ['get', 'post', 'patch', 'delete'] as const;

async function documentOf(tg: TestGateway): Promise<Doc> {
  const response = await tg.gateway.adminApp.inject({ url: '/admin/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
  return response.json<Doc>();
}

/** The routes an app registered, as "METHOD /path/{param}", read from Fastify's route tree. */
function registeredRoutes(app: FastifyInstance, prefix: string): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[└├]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD' && path.startsWith(prefix)) routes.push(`${method} ${path}`);
  }
  return routes.sort();
}

function operationsOf(doc: Doc): Array<{ path: string; method: (typeof METHODS)[number]; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method]! })));
}

/** Every property name of a schema, however deep (refs to components are not followed). */
function propertyNames(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, inner]) => [name, ...propertyNames(inner)]);
  return [...own, ...propertyNames(schema.items)];
}

t.test('the document is valid OpenAPI 3.1, and its error codes are the catalog', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const doc = await documentOf(tg);
  t.equal(doc.openapi, '3.1.0');
  // validate() dereferences in place: give it a copy.
  await t.resolves(SwaggerParser.validate(structuredClone(doc) as never), 'swagger-parser accepts the document');
  t.same(doc.components.schemas.Error!.properties.error.enum, Object.keys(ERRORS));
});

t.test('every admin API route is documented with its schemas, under the admin server; the OAuth endpoints under the public one', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const doc = await documentOf(tg);
  const adminServer = `http://${tg.settings.adminHost}:${tg.settings.adminPort}`;
  t.same(
    doc.servers.map((s) => s.url),
    [tg.settings.issuer, adminServer],
    'both listeners are servers of the document',
  );

  const documented = operationsOf(doc)
    .filter((o) => o.path.startsWith('/admin/v1/'))
    .map((o) => `${o.method.toUpperCase()} ${o.path}`)
    .sort();
  t.same(documented, registeredRoutes(tg.gateway.adminApp, '/admin/v1/'), 'the admin API routes, no more and no fewer');

  for (const { path, method, operation } of operationsOf(doc)) {
    const name = `${method.toUpperCase()} ${path}`;
    const servers = doc.paths[path]!.servers.map((s) => s.url);
    if (path.startsWith('/admin/')) {
      t.same(servers, [adminServer], `${name}: the admin listener's server`);
      t.same(operation.security, [{ adminToken: [] }], `${name}: needs the admin token`);
      for (const status of ['401', '403', '503'])
        t.same(
          operation.responses[status]?.content?.['application/json']?.schema,
          { $ref: '#/components/schemas/Error' },
          `${name}: ${status} is the error body`,
        );
    } else {
      t.same(servers, [tg.settings.issuer], `${name}: the public listener's server`);
    }
    const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
    t.equal(success.length, 1, `${name}: one success answer`);
    const [status, answer] = success[0]!;
    if (status === '204') t.notOk(answer.content, `${name}: 204 has no body`);
    else t.ok(answer.content?.['application/json']?.schema.type, `${name}: ${status} has a schema`);
    // Key rotation and retirement take no body: the path says it all.
    if (method === 'post' && path.startsWith('/admin/v1/') && !/\/(rotate|retire|repair)$/.test(path)) {
      const body = operation.requestBody?.content['application/json']?.schema;
      t.ok(body?.properties, `${name}: documents its body`);
      t.equal(body?.additionalProperties, false, `${name}: refuses unknown fields`);
    }
  }
  t.equal(doc.paths['/admin/v1/clients/{client_id}/secret']!.post!.requestBody!.required, false, 'the secret roll body may be left out');
  const lists = ['/admin/v1/clients', '/admin/v1/service-accounts'].map((path) =>
    (doc.paths[path]!.get as unknown as { parameters: Array<{ name: string; in: string }> }).parameters.map((p) => `${p.in}:${p.name}`),
  );
  t.same(
    lists,
    [
      ['query:limit', 'query:cursor'],
      ['query:limit', 'query:cursor', 'query:access_id'],
    ],
    'list queries are documented',
  );
});

t.test('every documented operation exists, on the listener the document names', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const doc = await documentOf(tg);
  const operations = operationsOf(doc);
  t.ok(operations.length >= 17, `${operations.length} operations documented`);
  for (const { path, method } of operations) {
    const app = doc.paths[path]!.servers[0]!.url === tg.settings.issuer ? tg.gateway.publicApp : tg.gateway.adminApp;
    const url = path.replace(/\{[^}]+\}/g, 'does-not-exist');
    const answer = await app.inject({ method: method.toUpperCase() as 'GET', url });
    t.notOk(answer.statusCode === 404 && answer.json<{ error: string }>().error === 'route_not_found', `${method.toUpperCase()} ${path} is routed`);
    if (path.startsWith('/admin/v1/')) t.equal(answer.statusCode, 401, `${method.toUpperCase()} ${path} needs the admin token`);
  }
});

t.test('answers keep every field of the views (their schemas drop nothing) and no answer schema holds a hash', async (t) => {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const doc = await documentOf(tg);
  const sa = await createServiceAccount(tg, { account_id: 'acct-1', expires_at: '2099-01-01T00:00:00Z', allowed_ips: ['10.0.0.0/8'] });
  const viewFields = [
    'access_id_hint',
    'account_id',
    'allowed_ips',
    'created_at',
    'description',
    'expires_at',
    'fingerprint',
    'id',
    'last_used_at',
    'last_used_ip',
    'permissions',
    'public_key',
    'public_keys',
  ];
  t.same(Object.keys(sa.account).sort(), [...viewFields, 'access_id'].sort(), 'creation: the view and the full Access ID');
  const shown = (await adminInject(tg, { method: 'GET', url: `/admin/v1/service-accounts/${sa.account.id}` })).json();
  t.same(Object.keys(shown).sort(), viewFields, 'show');
  t.same(shown.public_keys, [{ public_key: sa.account.public_key, fingerprint: sa.account.fingerprint, added_at: sa.account.created_at, last_used_at: null }]);
  t.same([shown.account_id, shown.expires_at, shown.allowed_ips], ['acct-1', '2099-01-01T00:00:00.000Z', ['10.0.0.0/8']]);
  const policy = (await adminInject(tg, { method: 'GET', url: '/admin/v1/policy' })).json();
  t.ok(policy.routes.length > 0);
  t.same(
    Object.keys(policy.routes[0]).sort(),
    ['auth', 'digest', 'host', 'id', 'message_signing', 'method', 'path', 'permissions', 'rate_limit', 'scopes', 'upstream'],
    'policy routes',
  );

  for (const { path, method, operation } of operationsOf(doc)) {
    for (const [status, answer] of Object.entries(operation.responses)) {
      const names = propertyNames(answer.content?.['application/json']?.schema);
      t.notOk(
        names.some((n) => /hash|private/i.test(n)),
        `${method.toUpperCase()} ${path} ${status}: no hash or private field`,
      );
    }
  }
});
