// The command model: each command declares its options and arguments with a description, so
// program.ts can build the parser and the --help text from one place, and tests can walk them all.
import type { CliContext } from './context.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** One letter, for -X style. */
  short?: string;
  /** May be given several times; the values arrive as a string[]. */
  multiple?: boolean;
  /** Without it the parser refuses the command (exit 2) before run() is called. */
  required?: boolean;
  /** The value's placeholder in --help, e.g. URL. */
  value?: string;
  description: string;
}

export interface ArgumentSpec {
  /** As shown in --help and usage, e.g. CLIENT_ID. */
  name: string;
  description: string;
  optional?: boolean;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** One CLI command: `gatewayctl <group> <name> ...` (or `gatewayctl <name>` when group is null). */
export interface Command {
  group: string | null;
  name: string;
  summary: string;
  /** The whole synopsis, starting with "gatewayctl". */
  usage: string;
  /** Keyed by long name without the dashes, as `values` are. */
  options: Record<string, OptionSpec>;
  arguments?: ArgumentSpec[];
  /** Shown after the options in --help. */
  details?: string;
  /** Returns the exit code (0 when nothing is returned); reads and writes only through `context`. */
  run(values: OptionValues, positionals: string[], context: CliContext): Promise<number | void>;
}

/** Options every command that talks to the admin API accepts. */
export const ADMIN_OPTIONS: Record<string, OptionSpec> = {
  'admin-url': { type: 'string', value: 'URL', description: 'admin API base URL (default: GATEWAY_ADMIN_URL, else http://127.0.0.1:8081)' },
  'admin-token': { type: 'string', value: 'TOKEN', description: 'admin API bearer token (default: GATEWAY_ADMIN_TOKEN, else the file .gateway/admin-token)' },
  json: { type: 'boolean', description: 'print the API answer as JSON, for scripts' },
};

/** The lists' --page-size (checked by admin-client.ts pageSize). */
export const PAGE_SIZE_OPTION: OptionSpec = {
  type: 'string',
  value: 'N',
  description: 'items fetched per request, 1 to 1000 (default 500); every page is listed',
};

/** Groups of commands, with what `gatewayctl <group> --help` says about them. */
export const GROUPS: Record<string, string> = {
  clients: 'OAuth clients of the public API.',
  keys: 'The signing keys of the tokens the gateway issues.',
  'service-accounts': 'Service accounts of the banking API.',
  store: 'The credential store: repair its list indexes.',
  policy: 'The policy in force: the scopes and permissions it declares, which credentials may be granted.',
};

/** Groups inside a group (`gatewayctl service-accounts keys add`), keyed by their whole path. */
export const SUBGROUPS: Record<string, string> = {
  'service-accounts keys': 'The public keys of a service account (key rotation: add the new key, then remove the old one).',
  'clients keys': 'The public keys of a private_key_jwt client (key rotation: add the new key, then remove the old one).',
};

export function csv(value: unknown): string[] {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
}
