// The scopes and permissions a policy declares. Each policy file may declare some, under `scopes:`
// and `permissions:` (name: description), and routes may name only declared ones, so a typo can
// never silently open or close a route. The code knows no scope or permission of its own.
import { PolicyError } from './policy-error.js';

export interface VocabularyEntry {
  readonly name: string;
  /** What holding it allows, in words: shown by the admin API, the CLI and the dashboard. */
  readonly description: string;
  /** The first file that declares it. */
  readonly file: string;
}

export interface PermissionEntry extends VocabularyEntry {
  /** Marked where permissions are granted (the dashboard's "moves money"), so over-granting stands out. */
  readonly movesMoney: boolean;
}

export interface Vocabulary {
  /** In declaration order: files by name, then as each file lists them. */
  readonly scopes: ReadonlyMap<string, VocabularyEntry>;
  readonly permissions: ReadonlyMap<string, PermissionEntry>;
}

/** What one file declares. */
export interface DeclaredVocabulary {
  readonly scopes: readonly VocabularyEntry[];
  readonly permissions: readonly PermissionEntry[];
}

function sameMeaning(a: VocabularyEntry | PermissionEntry, b: VocabularyEntry | PermissionEntry): boolean {
  return a.description === b.description && ('movesMoney' in a ? a.movesMoney : false) === ('movesMoney' in b ? b.movesMoney : false);
}

function merged<T extends VocabularyEntry>(kind: 'scope' | 'permission', declarations: readonly (readonly T[])[]): ReadonlyMap<string, T> {
  const entries = new Map<string, T>();
  for (const entry of declarations.flat()) {
    const earlier = entries.get(entry.name);
    if (earlier === undefined) entries.set(entry.name, entry);
    // Files that share a name (each declaring what its routes use) must mean the same by it.
    else if (!sameMeaning(earlier, entry))
      throw new PolicyError(
        `${entry.file}: ${kind} ${JSON.stringify(entry.name)} is also declared in ${earlier.file} with another meaning; declare it the same way in both files, or in one of them only`,
      );
  }
  return entries;
}

/** The policy's vocabulary: every file's declarations together; a name declared twice must mean the same. */
export function mergeVocabularies(declarations: readonly DeclaredVocabulary[]): Vocabulary {
  return Object.freeze({
    scopes: merged(
      'scope',
      declarations.map((d) => d.scopes),
    ),
    permissions: merged(
      'permission',
      declarations.map((d) => d.permissions),
    ),
  });
}

/** The names `previous` declares and `next` does not (what a reload takes away). */
export function removedNames(previous: Vocabulary, next: Vocabulary): { scopes: string[]; permissions: string[] } {
  return {
    scopes: [...previous.scopes.keys()].filter((name) => !next.scopes.has(name)),
    permissions: [...previous.permissions.keys()].filter((name) => !next.permissions.has(name)),
  };
}
