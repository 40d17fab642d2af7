// The kinds of value a setting holds: each parses a value from the environment (text) or the config
// file (YAML), and says in words what it allows (docs/settings.md shows that text as it is). A value
// that does not fit throws a ValueProblem, which the reader reports with the setting's name.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** What a parse may depend on besides the value: relative paths are resolved against cwd. */
export interface ReadContext {
  readonly cwd: string;
}

export interface Kind<T> {
  /** Allowed values in words, e.g. "0 to 65535" or "one of fence, wait, off". */
  readonly allowed: string;
  parse(raw: unknown, context: ReadContext): T;
}

/** What is wrong with one value, without the setting's name (the reader adds where it came from). */
export class ValueProblem extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'ValueProblem';
  }
}

export function refuse(problem: string): never {
  throw new ValueProblem(problem);
}

/** Unset: absent, null (a bare `key:` in YAML) or empty (an empty variable does not override). */
export function isGiven(raw: unknown): boolean {
  return raw !== undefined && raw !== null && raw !== '';
}

function asText(raw: unknown): string {
  if (typeof raw !== 'string' && typeof raw !== 'number') refuse('must be a string');
  return String(raw);
}

/** Text; `check` returns a problem or nothing. */
export function text(allowed = 'any text', check?: (value: string) => string | undefined): Kind<string> {
  return {
    allowed,
    parse(raw) {
      const value = asText(raw);
      const problem = check?.(value);
      if (problem !== undefined) refuse(problem);
      return value;
    },
  };
}

export function integer(min: number, max: number): Kind<number> {
  return {
    allowed: `${min} to ${max}`,
    parse(raw) {
      const digits = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
      if (!/^\d+$/.test(digits)) refuse(`must be a whole number, got ${JSON.stringify(raw)}`);
      const n = Number(digits);
      if (n < min || n > max) refuse(`must be between ${min} and ${max}, got ${n}`);
      return n;
    },
  };
}

export const flag: Kind<boolean> = {
  allowed: 'true or false',
  parse(raw) {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    return refuse(`must be true or false, got ${JSON.stringify(raw)}`);
  },
};

export function choice<const T extends string>(values: readonly T[]): Kind<T> {
  return {
    allowed: `one of ${values.join(', ')}`,
    parse(raw) {
      const value = asText(raw);
      if (!(values as readonly string[]).includes(value)) refuse(`must be one of ${values.join(', ')}, got ${JSON.stringify(value)}`);
      return value as T;
    },
  };
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

/** A URL with one of the protocols ("http:"); the text is kept as written, trimmed (and without trailing slashes, if asked). */
export function url(protocols: readonly string[], options: { trimTrailingSlash?: boolean } = {}): Kind<string> {
  return {
    // "an http://", said "an aitch-tee-tee-pee".
    allowed: `${protocols[0]?.startsWith('http') ? 'an' : 'a'} ${protocols.map((p) => `${p}//`).join(' or ')} URL`,
    parse(raw) {
      const value = asText(raw).trim();
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return refuse(`must be a URL, got ${JSON.stringify(redactUrl(value))}`);
      }
      if (!protocols.includes(parsed.protocol)) refuse(`must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
      return options.trimTrailingSlash ? value.replace(/\/+$/, '') : value;
    },
  };
}

/** A path, resolved against the working directory; `check` sees the resolved path. */
export function path(allowed = 'a path', check?: (absolute: string) => string | undefined): Kind<string> {
  return {
    allowed,
    parse(raw, context) {
      const absolute = resolve(context.cwd, asText(raw));
      const problem = check?.(absolute);
      if (problem !== undefined) refuse(problem);
      return absolute;
    },
  };
}

export const existingFile = path('a path to an existing file', (file) => (existsSync(file) ? undefined : `file ${file} does not exist`));

export interface ListOptions {
  /** What each entry is, in the "must be a list of ..." problem. */
  readonly of?: string;
  /** The problem when no entry is left; unset: an empty list is fine. */
  readonly empty?: string;
}

/** A YAML list, or a comma-separated string (the environment); blank entries are dropped. */
export function list<T>(entry: (text: string) => T, allowed: string, options: ListOptions = {}): Kind<readonly T[]> {
  return {
    allowed,
    parse(raw) {
      let entries: string[];
      if (Array.isArray(raw)) entries = raw.map((v) => String(v));
      else if (typeof raw === 'string') entries = raw.split(',');
      else return refuse(`must be a list${options.of ? ` of ${options.of}` : ''} or a comma-separated string`);
      const parsed = entries
        .map((e) => e.trim())
        .filter(Boolean)
        .map(entry);
      if (parsed.length === 0 && options.empty !== undefined) refuse(options.empty);
      return parsed;
    },
  };
}
