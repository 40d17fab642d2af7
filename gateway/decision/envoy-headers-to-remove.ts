// What Envoy removes from a request it forwards after an allowed decision, by the proxy's header rule
// (gateway/pipeline/mutate.ts): the consumed credentials, the client routing claims and overrides in
// common use, and any other header of this request the rule drops. Both Envoy services answer it (the
// HTTP service in x-envoy-auth-headers-to-remove, the gRPC one in headers_to_remove), on every allowed
// decision, so the rule holds even where the shipped Envoy file was edited.
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS, IDENTITY_HEADERS, forwardableRequestHeader } from '../pipeline/mutate.js';

/** Headers Envoy keeps setting itself: never removed by a decision. */
const SET_BY_ENVOY: ReadonlySet<string> = new Set(['host', 'content-length', 'x-forwarded-for', 'x-forwarded-proto']);

/**
 * The consumed credentials and the client routing claims: named on every allowed decision. None is
 * an identity header (checked as the module loads), so an answer's own headers are never among them.
 */
const ALWAYS_REMOVED: readonly string[] = [...new Set([...CONSUMED_CREDENTIAL_HEADERS, ...CLIENT_ROUTING_HEADERS])];
const ALWAYS_REMOVED_SET: ReadonlySet<string> = new Set(ALWAYS_REMOVED);
const ALWAYS_REMOVED_VALUE = ALWAYS_REMOVED.join(', ');
if (IDENTITY_HEADERS.some((name) => ALWAYS_REMOVED_SET.has(name))) throw new Error('an identity header is among the names every decision removes');

/**
 * The names of this request the rule drops besides the fixed ones (usually none), leaving out those
 * the decision's answer sets (Envoy would otherwise remove the answer itself). Pseudo-headers and
 * Envoy's own x-envoy-* are never named: Envoy ignores or owns them.
 */
function namesOfRequest(received: Iterable<string>, answered: ReadonlySet<string>): string[] {
  const names: string[] = [];
  for (const name of received) {
    if (ALWAYS_REMOVED_SET.has(name) || name.startsWith(':') || name.startsWith('x-envoy-') || SET_BY_ENVOY.has(name) || answered.has(name)) continue;
    if (!forwardableRequestHeader(name)) names.push(name);
  }
  return names;
}

/** The names to remove, given the names the request carries (each once) and the identity headers the answer sets. */
export function envoyHeadersToRemove(received: Iterable<string>, answered: ReadonlySet<string>): string[] {
  return [...ALWAYS_REMOVED, ...namesOfRequest(received, answered)];
}

/** envoyHeadersToRemove as the HTTP service's x-envoy-auth-headers-to-remove value: the fixed names joined once, not per decision. */
export function envoyHeadersToRemoveValue(received: Iterable<string>, answered: ReadonlySet<string>): string {
  const own = namesOfRequest(received, answered);
  return own.length === 0 ? ALWAYS_REMOVED_VALUE : `${ALWAYS_REMOVED_VALUE}, ${own.join(', ')}`;
}
