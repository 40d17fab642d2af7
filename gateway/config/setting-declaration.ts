// The shape of one setting's declaration (setting-registry.ts holds them all): its config key, its
// environment variable, the kind of value with its bounds, its default and what it does. The
// Settings type, the reader, docs/settings.md and config/gateway.yaml all follow from it.
import type { Kind } from './setting-kinds.js';

/** A value as the config file would hold it; a default is parsed by the setting's kind like any value. */
export type RawValue = string | number | boolean | readonly string[];

/** A default that follows other settings (read on demand); `shown` is what the docs say of it. */
export interface ComputedDefault {
  readonly from: (settings: never) => RawValue | undefined;
  readonly shown: string;
}

declare const VALUE: unique symbol;

export interface Setting<T> {
  /** Key in config/gateway.yaml. */
  readonly key: string;
  /** The environment variable, which wins over the key. */
  readonly env: string;
  readonly kind: Kind<unknown>;
  /** Undefined: unset unless given (then the value is `unset`). */
  readonly default: RawValue | ComputedDefault | undefined;
  /** The value of a setting left unset without a default: undefined, null where null means "off", or no entries. */
  readonly unset: undefined | null | readonly [];
  /** One or two sentences: what the setting does. */
  readonly description: string;
  /** Allowed values in words (default: the kind's). */
  readonly allowed: string;
  /** The default in words, when its value alone does not say it well. */
  readonly shownDefault: string | undefined;
  /** For config/gateway.yaml: a value to show for a setting that is unset by default. */
  readonly example: RawValue | undefined;
  /** For config/gateway.yaml: a heading written before this setting. */
  readonly section: string | undefined;
  /** The value's type (never set: it only carries T to the Settings type). */
  readonly [VALUE]?: T;
}

interface Spec<T> {
  readonly key: string;
  readonly env: string;
  readonly kind: Kind<T>;
  readonly description: string;
  readonly allowed?: string;
  readonly shownDefault?: string;
  readonly example?: RawValue;
  readonly section?: string;
}

function declare<T>(spec: Spec<unknown>, fallback: RawValue | ComputedDefault | undefined, unset: Setting<T>['unset']): Setting<T> {
  return {
    key: spec.key,
    env: spec.env,
    kind: spec.kind,
    default: fallback,
    unset,
    description: spec.description,
    allowed: spec.allowed ?? spec.kind.allowed,
    shownDefault: spec.shownDefault ?? (isComputed(fallback) ? fallback.shown : undefined),
    example: spec.example,
    section: spec.section,
  };
}

export function isComputed(fallback: RawValue | ComputedDefault | undefined): fallback is ComputedDefault {
  return typeof fallback === 'object' && fallback !== null && !Array.isArray(fallback);
}

/** A setting that always has a value: given, or its default. */
export function setting<T>(spec: Spec<T> & { readonly default: RawValue | ComputedDefault }): Setting<T> {
  return declare<T>(spec, spec.default, undefined);
}

/** A setting that may stay unset (undefined), e.g. a file that is generated when none is named. */
export function optional<T>(spec: Spec<T>): Setting<T | undefined> {
  return declare<T | undefined>(spec, undefined, undefined);
}

/** A setting whose absence switches something off (null), e.g. a listener's port. */
export function nullable<T>(spec: Spec<T>): Setting<T | null> {
  return declare<T | null>(spec, undefined, null);
}

/** A list that is empty unless given, e.g. the trusted proxies. */
export function listOrNone<T>(spec: Spec<readonly T[]>): Setting<readonly T[]> {
  return declare<readonly T[]>({ shownDefault: 'none', ...spec }, undefined, []);
}

/** The values a registry of settings reads to: one field per declaration. */
export type ValuesOf<R> = { readonly [K in keyof R]: R[K] extends Setting<infer T> ? T : never };

/** What a rule found: the settings it is about, and what is wrong. */
export interface RuleProblem<K extends string> {
  readonly about: K | readonly K[];
  readonly problem: string;
  /** Name the variable to set (a setting that is required but missing), not where a value came from. */
  readonly byVariable?: boolean;
}

/**
 * A rule across settings (a cross-field check). It runs once every setting is read, unless a
 * setting it involves has a problem of its own (then that problem is reported, not this one).
 */
export interface SettingRule<V> {
  /** What the rule demands, in a few words. */
  readonly rule: string;
  readonly involves: readonly (keyof V & string)[];
  check(values: V): readonly RuleProblem<keyof V & string>[];
}
