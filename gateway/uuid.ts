// Client ids and Access IDs are UUIDs (lower-case, as randomUUID makes them). Checking the form
// first keeps arbitrary header or form text out of store keys.
const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid(text: string): boolean {
  return UUID_FORMAT.test(text);
}
