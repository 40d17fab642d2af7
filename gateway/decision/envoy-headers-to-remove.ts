// What Envoy removes from a request it forwards after an allowed decision, by the proxy's header rule
// (gateway/pipeline/mutate.ts): the consumed credentials, the client routing claims and overrides in
// common use, and any other header of this request the rule drops. Both Envoy services answer it (the
// HTTP service in x-envoy-auth-headers-to-remove, the gRPC one in headers_to_remove), on every allowed
// decision, so the rule holds even where the shipped Envoy file was edited.
import { CLIENT_ROUTING_HEADERS, CONSUMED_CREDENTIAL_HEADERS, forwardableRequestHeader } from '../pipeline/mutate.js';

/** Headers Envoy keeps setting itself: never removed by a decision. */
const SET_BY_ENVOY: ReadonlySet<string> = new Set(['host', 'content-length', 'x-forwarded-for', 'x-forwarded-proto']);

/** The consumed credentials and the client routing claims: named on every allowed decision. */
const ALWAYS_REMOVED: readonly string[] = [...new Set([...CONSUMED_CREDENTIAL_HEADERS, ...CLIENT_ROUTING_HEADERS])];
const ALWAYS_REMOVED_SET: ReadonlySet<string> = new Set(ALWAYS_REMOVED);

/** The names of this request the rule drops besides the fixed ones; usually none. */
function namesOfRequest(received: Iterable<string>, answered: ReadonlySet<string>): string[] {
  const names: string[] = [];
  for (const name of received) {
    if (ALWAYS_REMOVED_SET.has(name) || name.startsWith(':') || name.startsWith('x-envoy-') || SET_BY_ENVOY.has(name) || answered.has(name)) continue;
    if (!forwardableRequestHeader(name)) names.push(name);
  }
  return names;
}

/**
 * The names to remove, given the names the request carries (each once) and those the decision's
 * answer sets (Envoy would otherwise remove the answer itself). Pseudo-headers and Envoy's own
 * x-envoy-* are never named: Envoy ignores or owns them.
 */
export function envoyHeadersToRemove(received: Iterable<string>, answered: ReadonlySet<string>): string[] {
  return [...ALWAYS_REMOVED.filter((name) => !answered.has(name)), ...namesOfRequest(received, answered)];
}

/** The joined fixed names for each answered set the HTTP service uses (a module constant). */
const joinedFixedNames = new WeakMap<ReadonlySet<string>, string>();

/**
 * envoyHeadersToRemove as the HTTP service's x-envoy-auth-headers-to-remove value, for an answered
 * set that is a constant: its fixed names (some 35) are listed and joined once, not per decision.
 */
export function envoyHeadersToRemoveValue(received: Iterable<string>, answered: ReadonlySet<string>): string {
  let fixed = joinedFixedNames.get(answered);
  if (fixed === undefined) {
    fixed = ALWAYS_REMOVED.filter((name) => !answered.has(name)).join(', ');
    joinedFixedNames.set(answered, fixed);
  }
  const own = namesOfRequest(received, answered);
  return own.length === 0 ? fixed : `${fixed}, ${own.join(', ')}`;
}
