// The signed banking route: a service account is created through the admin API and every request
// carries its own signature (fresh nonce), made with the exported signing library as a real client
// would. Requests are signed before the timed run so that, on a 2-core machine, the figure
// measures the gateway's verification rather than the load generator's signing; if the pool runs
// out, signing continues on the fly.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { generateSigningKey, signRequest } from '../gateway/signing/index.js';
import { runLoad, type LoadResult } from './load.js';

interface SignedRouteOptions {
  gatewayUrl: string;
  adminUrl: string;
  adminToken: string;
  load: { seconds: number; connections: number };
}

/** Enough signed requests for the run at well above the throughput this machine reaches. */
const POOL_PER_SECOND = 12_000;

export async function benchSignedRoute(options: SignedRouteOptions): Promise<LoadResult> {
  const { privateKeyPem, publicKeyLine } = generateSigningKey('bench');
  const response = await fetch(`${options.adminUrl}/admin/v1/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'bench', public_key: publicKeyLine, permissions: ['view_balance'] }),
  });
  if (!response.ok) throw new Error(`service account creation failed: ${response.status} ${await response.text()}`);
  const { access_id: accessId } = (await response.json()) as { access_id: string };
  const privateKey: KeyObject = createPrivateKey(privateKeyPem);
  const url = `${options.gatewayUrl}/v1/balance`;
  const sign = () => signRequest({ method: 'GET', url, accessId, privateKey });
  const pool = Array.from({ length: POOL_PER_SECOND * options.load.seconds }, sign);
  return runLoad({
    ...options.load,
    url,
    setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...(pool.pop() ?? sign()) } }),
  });
}
