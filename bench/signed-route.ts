// The signed banking route: a service account created through the admin API, and requests signed
// with the exported signing library as a real client would, each with its own nonce. They are
// signed before each run (measure.ts asks for as many as the run needs), so that the figure
// measures the gateway's verification rather than the load generator's signing.
import { signRequest } from '../gateway/signing/index.js';
import { createServiceAccount, type Gateway } from './gateway.js';
import type { FigureTarget } from './measure.js';

export async function signedBalanceTarget(gateway: Gateway): Promise<FigureTarget> {
  const { accessId, privateKey } = await createServiceAccount(gateway, 'bench', ['view_balance']);
  const url = `${gateway.url}/v1/balance`;
  return {
    url,
    presign: (count) => Array.from({ length: count }, () => signRequest({ method: 'GET', url, accessId, privateKey })),
  };
}

/** The same requests asked of the decision listener as Traefik forwardAuth asks: the request line and host in X-Forwarded-*. */
export function signedBalanceDecision(gateway: Gateway, proxied: FigureTarget, clientAddress: string): FigureTarget {
  const described = {
    'x-forwarded-method': 'GET',
    'x-forwarded-uri': '/v1/balance',
    'x-forwarded-host': new URL(gateway.url).host,
    'x-forwarded-for': clientAddress,
  };
  return { url: `${gateway.decisionUrl}/traefik`, presign: (count) => proxied.presign!(count).map((headers) => ({ ...headers, ...described })) };
}
