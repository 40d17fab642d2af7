// The upstreams the gateway forwards to, by name: `upstreams:` in the config file (name: URL, or
// name: { url, timeout_ms, connections }) and GATEWAY_UPSTREAM_<NAME>=URL in the environment (the
// name upper-cased, - as _). PUBLIC_UPSTREAM and BANKING_UPSTREAM (public_upstream and
// banking_upstream in the file) remain the URLs of `public` and `banking`. The environment wins over
// the file; two forms in the same place naming different URLs are refused, not chosen between.
import { closestName } from './closest-name.js';
import type { Setting } from './setting-declaration.js';
import { integer, isGiven, url, ValueProblem, type Kind, type ReadContext } from './setting-kinds.js';
import type { Env, Raw } from './setting-reader.js';
import type { SettingProblem } from './settings-error.js';

export interface UpstreamSettings {
  /** Where its routes forward; undefined when no URL is set (development fills in an example for public and banking). */
  readonly url: string | undefined;
  /** Longest wait for its answer. */
  readonly timeoutMs: number;
  /** Most connections open to it at once; 0: no limit. */
  readonly connections: number;
}

export type Upstreams = Readonly<Record<string, UpstreamSettings>>;

export const UPSTREAM_NAME = /^[a-z][a-z0-9-]{0,31}$/;
export const UPSTREAM_NAME_RULE = 'a lower-case letter, then up to 31 lower-case letters, digits or -';
export const UPSTREAM_VARIABLE_PREFIX = 'GATEWAY_UPSTREAM_';
/** How docs name the variables of all upstreams. */
export const UPSTREAM_VARIABLE_PATTERN = `${UPSTREAM_VARIABLE_PREFIX}<NAME>`;
const UPSTREAM_FIELDS = ['url', 'timeout_ms', 'connections'] as const;

export const UPSTREAM_URL: Kind<string> = url(['http:', 'https:']);
export const UPSTREAM_TIMEOUT_MS = integer(100, 600_000);
export const UPSTREAM_CONNECTIONS = integer(0, 100_000);

/** ledger-v2 → GATEWAY_UPSTREAM_LEDGER_V2. */
export function upstreamVariable(name: string): string {
  return `${UPSTREAM_VARIABLE_PREFIX}${name.toUpperCase().replace(/-/g, '_')}`;
}

/** GATEWAY_UPSTREAM_LEDGER_V2 → ledger-v2; undefined for a variable that names no valid upstream. */
export function upstreamNameOf(variable: string): string | undefined {
  if (!variable.startsWith(UPSTREAM_VARIABLE_PREFIX)) return undefined;
  const suffix = variable.slice(UPSTREAM_VARIABLE_PREFIX.length);
  if (!/^[A-Z][A-Z0-9_]*$/.test(suffix)) return undefined;
  const name = suffix.toLowerCase().replace(/_/g, '-');
  return UPSTREAM_NAME.test(name) ? name : undefined;
}

/** The shipped upstreams and the settings that have always held their URLs. */
export interface ShippedUpstream {
  readonly name: 'public' | 'banking';
  readonly setting: Setting<string | undefined>;
  /** Its value as the registry read it (environment first), or undefined. */
  readonly value: string | undefined;
}

export interface UpstreamInput {
  readonly yaml: Raw;
  readonly env: Env;
  readonly context: ReadContext;
  readonly defaults: { readonly timeoutMs: number; readonly connections: number };
  readonly shipped: readonly ShippedUpstream[];
  /** Variables that are settings of their own (GATEWAY_UPSTREAM_TIMEOUT_MS): never an upstream's. */
  readonly settingVariables: ReadonlySet<string>;
}

interface Declared {
  url?: { value: unknown; label: string };
  timeoutMs?: number;
  connections?: number;
}

const isMapping = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value, or undefined with its problem collected (and `hint` after it). */
function parsed<T>(kind: Kind<T>, raw: unknown, label: string, context: ReadContext, problems: SettingProblem[], hint = ''): T | undefined {
  try {
    return kind.parse(raw, context);
  } catch (error) {
    if (!(error instanceof ValueProblem)) throw error;
    problems.push({ setting: label, problem: `${error.message}${hint}` });
    return undefined;
  }
}

/** GATEWAY_UPSTREAM_TIMEOUT=5000 is more likely GATEWAY_UPSTREAM_TIMEOUT_MS misspelt than an upstream named timeout. */
function settingHint(variable: string, settingVariables: ReadonlySet<string>): string {
  const closest = closestName(variable, [...settingVariables].filter((name) => name.startsWith(UPSTREAM_VARIABLE_PREFIX)));
  return closest ? ` (did you mean ${closest}?)` : '';
}

/** `upstreams:` from the config file: each name's URL, timeout and connections as written. */
function fromFile(input: UpstreamInput, problems: SettingProblem[]): Map<string, Declared> {
  const declared = new Map<string, Declared>();
  const raw = input.yaml.upstreams;
  if (!isGiven(raw)) return declared;
  if (!isMapping(raw)) {
    problems.push({ setting: 'upstreams (config)', problem: 'must be a mapping of upstream names to URLs (or to { url, timeout_ms, connections })' });
    return declared;
  }
  for (const [name, entry] of Object.entries(raw)) {
    const at = `upstreams.${name}`;
    const problem = nameProblem(name, input.settingVariables);
    if (problem) {
      problems.push({ setting: `${at} (config)`, problem });
      continue;
    }
    const variable = upstreamVariable(name);
    if (!isMapping(entry)) {
      declared.set(name, isGiven(entry) ? { url: { value: entry, label: `${at} (config) / ${variable}` } } : {});
      continue;
    }
    for (const field of Object.keys(entry)) {
      if (!(UPSTREAM_FIELDS as readonly string[]).includes(field)) problems.push({ setting: `${at}.${field} (config)`, problem: `is not an upstream setting (${UPSTREAM_FIELDS.join(', ')})` });
    }
    const one: Declared = {};
    if (isGiven(entry.url)) one.url = { value: entry.url, label: `${at}.url (config) / ${variable}` };
    if (isGiven(entry.timeout_ms)) one.timeoutMs = parsed(UPSTREAM_TIMEOUT_MS, entry.timeout_ms, `${at}.timeout_ms (config)`, input.context, problems);
    if (isGiven(entry.connections)) one.connections = parsed(UPSTREAM_CONNECTIONS, entry.connections, `${at}.connections (config)`, input.context, problems);
    declared.set(name, one);
  }
  return declared;
}

/** Why a name cannot be an upstream's, or undefined. */
function nameProblem(name: string, settingVariables: ReadonlySet<string>): string | undefined {
  if (!UPSTREAM_NAME.test(name)) return `${JSON.stringify(name)} is not an upstream name: ${UPSTREAM_NAME_RULE}`;
  if (settingVariables.has(upstreamVariable(name))) return `${name} cannot be an upstream's name: ${upstreamVariable(name)} is a setting of its own`;
  return undefined;
}

/** GATEWAY_UPSTREAM_<NAME> variables: each name's URL. */
function fromEnvironment(input: UpstreamInput, problems: SettingProblem[]): Map<string, { value: string; label: string }> {
  const urls = new Map<string, { value: string; label: string }>();
  for (const [variable, value] of Object.entries(input.env)) {
    if (!variable.startsWith(UPSTREAM_VARIABLE_PREFIX) || input.settingVariables.has(variable) || !isGiven(value)) continue;
    const name = upstreamNameOf(variable);
    if (name === undefined) {
      problems.push({
        setting: variable,
        problem: `does not name an upstream: ${UPSTREAM_VARIABLE_PATTERN} is the name upper-cased, - as _ (a name is ${UPSTREAM_NAME_RULE})`,
      });
      continue;
    }
    urls.set(name, { value: value!, label: variable });
  }
  return urls;
}

/** A form's text, compared with another's (`  http://a ` and `http://a` are one URL). */
const textOf = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value).trim() : JSON.stringify(value));

/**
 * PUBLIC_UPSTREAM beside GATEWAY_UPSTREAM_PUBLIC (or public_upstream beside upstreams.public) naming
 * another URL is a contradiction: refused, since either choice would surprise someone. Says where the
 * older setting is given (its value, read and checked by the registry, is `shipped.value`).
 */
function contradictions(
  shipped: ShippedUpstream,
  inEnvironment: { value: string; label: string } | undefined,
  inFile: { value: unknown; label: string } | undefined,
  input: UpstreamInput,
  problems: SettingProblem[],
): { inEnvironment: boolean } {
  const { key, env: variable } = shipped.setting;
  const olderInEnvironment = input.env[variable];
  const olderInFile = input.yaml[key];
  if (inEnvironment && isGiven(olderInEnvironment) && textOf(olderInEnvironment) !== textOf(inEnvironment.value)) {
    problems.push({
      setting: `${variable} and ${inEnvironment.label}`,
      problem: `name different URLs for upstream ${shipped.name}; set one of them (${variable} is the older name of ${inEnvironment.label})`,
    });
  }
  if (inFile && isGiven(olderInFile) && textOf(olderInFile) !== textOf(inFile.value)) {
    problems.push({ setting: `${key} (config) and ${inFile.label.replace(/ \/ .*$/, '')}`, problem: `name different URLs for upstream ${shipped.name}; keep one of them` });
  }
  return { inEnvironment: isGiven(olderInEnvironment) };
}

/** Every upstream by name (public and banking always), with its URL, timeout and connections; problems are collected. */
export function readUpstreams(input: UpstreamInput, problems: SettingProblem[]): Upstreams {
  const inFile = fromFile(input, problems);
  const inEnv = fromEnvironment(input, problems);
  const names = [...new Set([...input.shipped.map((s) => s.name), ...inFile.keys(), ...[...inEnv.keys()].sort()])];
  const upstreams: Record<string, UpstreamSettings> = {};
  for (const name of names) {
    const declared = inFile.get(name) ?? {};
    const inEnvironment = inEnv.get(name);
    const shipped = input.shipped.find((s) => s.name === name);
    const older = shipped && contradictions(shipped, inEnvironment, declared.url, input, problems);
    // Precedence: the environment over the file; in each, the upstream's own form over the older setting.
    let url: string | undefined;
    if (inEnvironment) url = parsed(UPSTREAM_URL, inEnvironment.value, inEnvironment.label, input.context, problems, settingHint(inEnvironment.label, input.settingVariables));
    else if (older?.inEnvironment) url = shipped!.value;
    else if (declared.url) url = parsed(UPSTREAM_URL, declared.url.value, declared.url.label, input.context, problems);
    else url = shipped?.value;
    upstreams[name] = Object.freeze({
      url,
      timeoutMs: declared.timeoutMs ?? input.defaults.timeoutMs,
      connections: declared.connections ?? input.defaults.connections,
    });
  }
  return Object.freeze(upstreams);
}

/** The upstreams that have a URL: those the gateway can forward to. */
export function upstreamsWithUrls(upstreams: Upstreams): Record<string, UpstreamSettings & { readonly url: string }> {
  return Object.fromEntries(Object.entries(upstreams).filter((entry): entry is [string, UpstreamSettings & { url: string }] => entry[1].url !== undefined));
}
