// How deep a JSON text nests, read without parsing it: JSON bodies are refused past a fixed depth
// before JSON.parse builds them, because the code that walks a parsed value (AJV's checks, the
// messages that show a value, JSON.stringify) recurses, and a body of a few kilobytes can nest
// thousands of levels deep: far under the body limit, far over the stack.

/**
 * The deepest a request body may nest lists and objects. The gateway's own bodies nest 3 levels at
 * most (a JWK object inside a service account body); 32 leaves a wide margin for any client and
 * keeps every recursive walk of a body a few dozen frames deep. Not a setting: no request needs more.
 */
export const MAX_JSON_DEPTH = 32;

/** Where a text first nests too deeply. */
export interface DepthExcess {
  /** The name of the top-level member it happens in; undefined when the text is not an object at the top. */
  member: string | undefined;
}

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A member name's string literal, decoded; the text between the quotes if it is not valid JSON. */
function memberName(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal.slice(1, -1);
  }
}

/**
 * Where `text` first nests lists and objects deeper than `limit`, or undefined when it never does.
 * One pass over the characters, no recursion, no allocation but the member's name: it stops at
 * the first level past the limit, so a text of any depth costs at most one read of it. Brackets
 * inside strings do not count. Text that is not JSON gets a best-effort answer (the JSON parser
 * refuses it anyway).
 */
export function depthExcess(text: string, limit: number = MAX_JSON_DEPTH): DepthExcess | undefined {
  let depth = 0;
  let topIsObject = false;
  let inString = false;
  let stringStart = 0;
  // Where the last string closed at depth 1 starts and ends (-1: none), and the same for the name of
  // the current top-level member: in a top-level object, the string before a container at depth 2
  // is that container's member name.
  let lastStart = -1;
  let lastEnd = -1;
  let memberStart = -1;
  let memberEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 1 && topIsObject) {
          lastStart = stringStart;
          lastEnd = i + 1;
        }
      }
    } else if (c === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth++;
      if (depth === 1) topIsObject = c === OPEN_OBJECT;
      else if (depth === 2) {
        memberStart = lastStart;
        memberEnd = lastEnd;
      }
      if (depth > limit) return { member: memberStart < 0 ? undefined : memberName(text.slice(memberStart, memberEnd)) };
    } else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && depth > 0) {
      depth--;
    }
  }
  return undefined;
}
