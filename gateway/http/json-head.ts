// The start of a value's JSON text, for messages that show a value the client sent. JSON.stringify
// recurses (a deep enough value overflows the stack) and writes the whole value when a message
// keeps a few dozen characters of it; this writes the same text without recursion and stops once
// it has enough.

type Container = readonly unknown[] | Readonly<Record<string, unknown>>;

/** A list or object being written: its member names (objects only), the next member, and whether one was written. */
interface Frame {
  container: Container;
  keys: readonly string[] | undefined;
  next: number;
  wrote: boolean;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** What JSON.stringify writes for a value: its toJSON() when it has one (a Date, say). */
function jsonValueOf(value: unknown, key: string): unknown {
  const toJSON: unknown = isContainer(value) ? (value as { toJSON?: unknown }).toJSON : undefined;
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(value, key) : value;
}

/** Values JSON.stringify leaves out of an object (and writes as null in a list). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * The text of a value that is not a list or object, at least its first `room` characters: a long
 * string is cut before it is escaped (one character more than the room, so that a surrogate pair
 * cut in two changes only what lies past the room).
 */
function scalarText(value: unknown, room: number): string {
  if (typeof value === 'string') return JSON.stringify(value.length > room ? value.slice(0, room + 1) : value);
  // Non-finite numbers are null, as JSON.stringify writes them; a bigint (never parsed JSON) as its digits.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // null, and in a list the values JSON leaves out of an object.
  return 'null';
}

/**
 * JSON.stringify(value) cut to its first `length` characters, without recursion and without
 * writing more than that: bounded stack and work for any value, however deep or large. Undefined
 * where JSON.stringify gives undefined (undefined, a function or a symbol).
 */
export function jsonHead(value: unknown, length: number): string | undefined {
  const root = jsonValueOf(value, '');
  if (isOmitted(root)) return undefined;
  if (!isContainer(root)) return scalarText(root, length).slice(0, length);
  let text = '';
  const stack: Frame[] = [];
  /** Writes a member's value: a scalar whole, a list or object opened (its members follow). */
  const write = (member: unknown) => {
    if (!isContainer(member)) {
      text += scalarText(member, length - text.length);
      return;
    }
    const list = Array.isArray(member);
    text += list ? '[' : '{';
    stack.push({ container: member, keys: list ? undefined : Object.keys(member), next: 0, wrote: false });
  };
  write(root);
  while (stack.length > 0 && text.length < length) {
    const frame = stack[stack.length - 1]!;
    const { container, keys } = frame;
    if (keys === undefined) {
      const items = container as readonly unknown[];
      if (frame.next >= items.length) {
        text += ']';
        stack.pop();
        continue;
      }
      const index = frame.next++;
      if (index > 0) text += ',';
      // A member JSON leaves out of an object is null in a list, as scalarText writes it.
      write(jsonValueOf(items[index], String(index)));
    } else {
      if (frame.next >= keys.length) {
        text += '}';
        stack.pop();
        continue;
      }
      const key = keys[frame.next++]!;
      const member = jsonValueOf((container as Readonly<Record<string, unknown>>)[key], key);
      if (isOmitted(member)) continue;
      text += `${frame.wrote ? ',' : ''}${scalarText(key, length - text.length)}:`;
      frame.wrote = true;
      write(member);
    }
  }
  return text.slice(0, length);
}
