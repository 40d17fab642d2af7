// A list of names from a vocabulary (a client's scopes, a service account's permissions): at
// least one, each known. Repeats are allowed and dropped by the route, as they always were.
import { Type } from 'typebox';
import { messages, VocabularyName } from '../../http/schema-helpers.js';

export function VocabularyListInput(names: readonly string[], description: string) {
  const expected = `must be a non-empty list drawn from: ${names.join(', ')}`;
  // An entry of another type is named like an unknown one: "1 is not one of: ...".
  const name = VocabularyName(names, messages({ type: `{value} is not one of: ${names.join(', ')}` }));
  return Type.Array(name, { minItems: 1, description, ...messages({ required: expected, type: expected, minItems: expected }) });
}

export function VocabularyList(names: readonly string[]) {
  return Type.Array(VocabularyName(names));
}
