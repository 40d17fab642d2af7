// Shortcuts for tests of Bearer-protected routes: create a client through the admin API and get a token.
import type { CreatedClientView } from '../../gateway/admin/clients-routes.js';
import type { TestGateway } from './gateway.js';

export type CreatedClient = CreatedClientView;

export async function createClient(tg: TestGateway, scopes: string[], extra: Record<string, unknown> = {}): Promise<CreatedClient> {
  const response = await tg.gateway.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/clients',
    headers: { authorization: `Bearer ${tg.adminToken}` },
    payload: { name: 'test client', scopes, ...extra },
  });
  if (response.statusCode !== 201) throw new Error(`client creation failed: ${response.statusCode} ${response.body}`);
  return response.json<CreatedClient>();
}

export function tokenRequest(tg: TestGateway, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return tg.gateway.publicApp.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

export async function accessToken(tg: TestGateway, client: CreatedClient, scope?: string): Promise<string> {
  const response = await tokenRequest(tg, { client_id: client.client_id, client_secret: client.client_secret, ...(scope ? { scope } : {}) });
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
  return response.json<{ access_token: string }>().access_token;
}
