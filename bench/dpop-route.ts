// The public route with a DPoP-bound token (RFC 9449): a client's token bound to its Ed25519 key,
// and a fresh proof for each request, made with the client package as a real client would. The
// proofs are made before each run (measure.ts asks for as many as the run needs), so that the figure
// measures the gateway's checks (the token, the proof's signature, its jti's single use) rather than
// the load generator's signing.
import { generateKeyPairSync } from 'node:crypto';
import { dpopProof } from '@access-gateway/signing';
import { adminCall, type Gateway } from './gateway.js';
import type { FigureTarget } from './measure.js';

export async function dpopSalesTarget(gateway: Gateway, path: string): Promise<FigureTarget> {
  const key = generateKeyPairSync('ed25519').privateKey;
  const client = await adminCall<{ client_id: string; client_secret: string }>(gateway, 'POST', '/admin/v1/clients', { name: 'bench dpop', scopes: ['sales'] });
  const metadata = (await (await fetch(`${gateway.url}/.well-known/oauth-authorization-server`)).json()) as { token_endpoint: string };
  const response = await fetch(`${gateway.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: dpopProof(key, { method: 'POST', url: metadata.token_endpoint }) },
    body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret, scope: 'sales' }).toString(),
  });
  if (!response.ok) throw new Error(`DPoP token request failed: ${response.status} ${await response.text()}`);
  const { access_token: token } = (await response.json()) as { access_token: string };
  const url = gateway.url + path;
  return {
    url,
    presign: (count) =>
      Array.from({ length: count }, () => ({ authorization: `DPoP ${token}`, dpop: dpopProof(key, { method: 'GET', url, accessToken: token }) })),
  };
}
