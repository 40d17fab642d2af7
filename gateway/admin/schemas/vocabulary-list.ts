// A list of names from the policy's vocabulary (a client's scopes, a service account's
// permissions). The vocabulary is declared in the policy files and changes on reload: a request is
// checked against the one in force (vocabulary-body.ts builds its schema with `names`), while the
// OpenAPI document describes any declared name. Repeats are allowed and dropped by the route, as
// they always were.
import { Type } from 'typebox';
import { messages, VocabularyName } from '../../http/schema-helpers.js';

export type VocabularyKind = 'scope' | 'permission';

const declared = (kind: VocabularyKind) => `A ${kind} the policy declares (GET /admin/v1/policy lists them with their descriptions).`;

/**
 * At least one name, each declared. `names`: the declared names the list is checked against;
 * undefined for the documented form, which accepts any name.
 */
export function VocabularyListInput(kind: VocabularyKind, names: readonly string[] | undefined, description: string) {
  if (names === undefined) return Type.Array(Type.String({ description: declared(kind) }), { minItems: 1, description });
  if (names.length === 0) {
    // Nothing to grant: every entry, and the list itself, is refused saying so.
    const none = `cannot be granted: the policy declares no ${kind}s`;
    const nothing = Type.Unsafe<string>({ type: 'string', not: {}, ...messages({ type: none, not: none }) });
    return Type.Array(nothing, { minItems: 1, description, ...messages({ required: none, type: none, minItems: none }) });
  }
  const expected = `must be a non-empty list drawn from: ${names.join(', ')}`;
  // An entry of another type is named like an unknown one: "1 is not one of: ...".
  const name = VocabularyName(names, messages({ type: `{value} is not one of: ${names.join(', ')}` }));
  return Type.Array(name, { minItems: 1, description, ...messages({ required: expected, type: expected, minItems: expected }) });
}

/** Names a credential holds: declared when it was created (a reload may have removed some since). */
export function VocabularyList(kind: VocabularyKind) {
  return Type.Array(Type.String({ description: `A ${kind}, declared by the policy when the credential was created.` }));
}
