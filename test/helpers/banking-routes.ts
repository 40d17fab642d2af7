// One concrete request per route of the banking policy ({id} filled in, a JSON body for POST), so
// tests can send through every route without listing them again.
import type { RouteTable } from '../../gateway/policy/route-table.js';

export interface BankingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export function bankingRequests(routes: RouteTable): BankingRequest[] {
  return routes.routes
    .filter((route) => route.upstream === 'banking')
    .map((route): BankingRequest => {
      const url = route.template.replace(/\{[^}]+\}/g, 'tx_123') + (route.method === 'GET' ? '?page=2&size=10' : '');
      if (route.method === 'GET' || route.method === 'HEAD') return { method: route.method, url, headers: {} };
      return {
        method: route.method,
        url,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '10.00', currency: 'BRL', to: 'pix-key' }),
      };
    });
}
