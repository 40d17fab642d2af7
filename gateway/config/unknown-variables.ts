// GATEWAY_* environment variables that no part of the gateway reads: most likely a misspelt setting,
// silently ignored unless the start says so (GATEWAY_SIGNATURE_WINDOW instead of
// GATEWAY_SIGNATURE_WINDOW_SECONDS).
import { closestName } from './closest-name.js';
import type { Env } from './setting-reader.js';
import { SETTING_ENV_NAMES } from './settings.js';

/** GATEWAY_* variables read besides the settings: the config file's path, and gatewayctl's own. */
export const OTHER_GATEWAY_VARIABLES = ['GATEWAY_CONFIG', 'GATEWAY_ADMIN_URL', 'GATEWAY_ACCESS_ID', 'GATEWAY_PRIVATE_KEY_FILE'] as const;

const KNOWN = [...SETTING_ENV_NAMES.filter((name) => name.startsWith('GATEWAY_')), ...OTHER_GATEWAY_VARIABLES];

export interface UnknownVariable {
  readonly name: string;
  /** The known variable it most likely meant, if one is close. */
  readonly closest: string | undefined;
}

/** The GATEWAY_* variables of `env` that the gateway does not read, in name order. */
export function unknownVariables(env: Env): UnknownVariable[] {
  return Object.keys(env)
    // A GATEWAY_UPSTREAM_<NAME> is an upstream's URL, read by the settings (which refuse one naming no valid upstream).
    .filter((name) => name.startsWith('GATEWAY_') && !KNOWN.includes(name) && !/^GATEWAY_UPSTREAM_./.test(name))
    .sort()
    .map((name) => ({ name, closest: closestName(name, KNOWN) }));
}

/** "GATEWAY_SIGNATURE_WINDOW (did you mean GATEWAY_SIGNATURE_WINDOW_SECONDS?), GATEWAY_X". */
export function describeUnknownVariables(unknown: readonly UnknownVariable[]): string {
  return unknown.map((u) => (u.closest ? `${u.name} (did you mean ${u.closest}?)` : u.name)).join(', ');
}
