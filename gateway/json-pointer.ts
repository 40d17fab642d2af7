// JSON Pointers (RFC 6901), as AJV names where in a document a schema failed (instancePath):
// the policy loader and the request-body checks both turn them back into member names.

/** "/routes/0/a~1b" → ["routes", "0", "a/b"]; "" (the whole document) → []. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  // ~1 before ~0: "~01" is the member "~1", not "/".
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}
