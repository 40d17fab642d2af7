// The signed banking route: a service account is created through the admin API and every request
// is signed afresh (new nonce, current created) with the exported signing library, as a real
// client would. Signing happens in the load generator's process, not the gateway's.
import { createPrivateKey } from 'node:crypto';
import { generateSigningKey, signRequest } from '../gateway/signing/index.js';
import { runLoad, type LoadResult } from './load.js';

interface SignedRouteOptions {
  gatewayUrl: string;
  adminUrl: string;
  adminToken: string;
  load: { seconds: number; connections: number };
}

export async function benchSignedRoute(options: SignedRouteOptions): Promise<LoadResult> {
  const { privateKeyPem, publicKeyLine } = generateSigningKey('bench');
  const response = await fetch(`${options.adminUrl}/admin/v1/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'bench', public_key: publicKeyLine, permissions: ['view_balance'] }),
  });
  if (!response.ok) throw new Error(`service account creation failed: ${response.status} ${await response.text()}`);
  const { access_id: accessId } = (await response.json()) as { access_id: string };
  const privateKey = createPrivateKey(privateKeyPem);
  const url = `${options.gatewayUrl}/v1/balance`;
  return runLoad({
    ...options.load,
    url,
    setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...signRequest({ method: 'GET', url, accessId, privateKey }) } }),
  });
}
