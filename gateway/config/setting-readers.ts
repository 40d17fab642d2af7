// The primitives every setting is read with: environment first, then YAML, each failure a
// SettingsError naming where the value came from (GATEWAY_PORT, or port (config) / GATEWAY_PORT).
import { SOURCES, type Key } from './setting-sources.js';

export class SettingsError extends Error {
  constructor(readonly setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.name = 'SettingsError';
  }
}

export type Raw = Record<string, unknown>;

/** Reads a value: environment first, then YAML. Returns [value, the name to report]. */
export function lookup(key: Key, yaml: Raw, env: NodeJS.ProcessEnv): [unknown, string] {
  const [yamlKey, envName] = SOURCES[key];
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv !== '') return [fromEnv, envName];
  return [yaml[yamlKey], `${yamlKey} (config) / ${envName}`];
}

export function str(key: Key, yaml: Raw, env: NodeJS.ProcessEnv, fallback?: string): string | undefined {
  const [value, name] = lookup(key, yaml, env);
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string' && typeof value !== 'number') throw new SettingsError(name, 'must be a string');
  return String(value);
}

export function int(key: Key, yaml: Raw, env: NodeJS.ProcessEnv, fallback: number, min: number, max: number): number {
  const [value, name] = lookup(key, yaml, env);
  if (value === undefined || value === null || value === '') return fallback;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a YAML/env value of any kind; non-numbers fail the test below
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new SettingsError(name, `must be a whole number, got ${JSON.stringify(value)}`);
  const n = Number(text);
  if (n < min || n > max) throw new SettingsError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function list(key: Key, yaml: Raw, env: NodeJS.ProcessEnv, fallback: string[]): string[] {
  const [value, name] = lookup(key, yaml, env);
  if (value === undefined || value === null || value === '') return fallback;
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
  throw new SettingsError(name, 'must be a list or a comma-separated string');
}

export function bool(key: Key, yaml: Raw, env: NodeJS.ProcessEnv, fallback: boolean): boolean {
  const [value, name] = lookup(key, yaml, env);
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new SettingsError(name, `must be true or false, got ${JSON.stringify(value)}`);
}

export function url(key: Key, yaml: Raw, env: NodeJS.ProcessEnv, protocols: string[]): string | undefined {
  const text = str(key, yaml, env);
  if (text === undefined) return undefined;
  const [, name] = lookup(key, yaml, env);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new SettingsError(name, `must be a URL, got ${JSON.stringify(redactUrl(text))}`);
  }
  if (!protocols.includes(parsed.protocol)) throw new SettingsError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  return text;
}

export function oneOf<T extends string>(key: Key, yaml: Raw, env: NodeJS.ProcessEnv, allowed: readonly T[], fallback: T): T {
  const value = str(key, yaml, env, fallback)!;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new SettingsError(lookup(key, yaml, env)[1], `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** Drops credentials from a URL before it is shown in an error or a log. */
export function redactUrl(text: string): string {
  try {
    const u = new URL(text);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return text.replace(/\/\/[^@/]*@/, '//***@');
  }
}
