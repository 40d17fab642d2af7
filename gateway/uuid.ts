// Client ids and Access IDs are UUIDs (lower-case, as randomUUID makes them). Checking the form
// first keeps arbitrary header or form text out of store keys.
/** The form as a pattern, for schemas (JSON Schema `pattern`). */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const UUID_FORMAT = new RegExp(UUID_PATTERN);

export function isUuid(text: string): boolean {
  return UUID_FORMAT.test(text);
}
