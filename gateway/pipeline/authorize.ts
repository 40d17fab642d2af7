// Stage 3: is the authenticated caller allowed on this route.
import { GatewayError } from '../errors.js';
import type { RequestContext } from './context.js';
import { checkServiceAccountAccess } from './authorize-service-account.js';

export function authorize(context: RequestContext): void {
  const { route, principal } = context;
  if (!principal) throw new GatewayError('internal_error', 'authorize ran before authenticate');
  if (principal.kind === 'client') {
    const missing = route.scopes.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) {
      const scope = route.scopes.join(' ');
      throw new GatewayError('insufficient_scope', `This route requires the scope ${missing.join(' ')}.`, {
        headers: { 'www-authenticate': `Bearer realm="gateway", error="insufficient_scope", scope="${scope}"` },
      });
    }
    return;
  }
  checkServiceAccountAccess(principal.account, route, context.clientAddress);
}
