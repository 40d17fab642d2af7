import type { ParseArgsConfig } from 'node:util';

/** One CLI command: `gatewayctl <group> <name> ...` (or `gatewayctl <name>` when group is null). */
export interface Command {
  group: string | null;
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<number | void>;
}

/** Options every command that talks to the admin API accepts. */
export const ADMIN_OPTIONS = {
  'admin-url': { type: 'string' },
  'admin-token': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function csv(value: unknown): string[] {
  return typeof value === 'string' ? value.split(',').map((v) => v.trim()).filter(Boolean) : [];
}
