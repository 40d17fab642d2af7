// A strict reader of DER (X.690 section 10) for the one structure public keys arrive in. Strict
// because a lenient parser accepts several encodings of one key: only single-byte tags, definite
// lengths in their shortest form, and nothing read past the end are accepted.

export class DerError extends Error {}

export const DER_SEQUENCE = 0x30;
export const DER_BIT_STRING = 0x03;
export const DER_OBJECT_IDENTIFIER = 0x06;

/** Longest content accepted: two length bytes. A public key is far smaller. */
const MAX_LENGTH_BYTES = 2;

export class DerReader {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  /** The content of the next element, which must carry `tag`; `what` names it in the error. */
  expect(tag: number, what: string): Buffer {
    if (this.remaining < 2) throw new DerError(`the data ends before ${what}`);
    const found = this.bytes[this.offset]!;
    if (found !== tag)
      throw new DerError(`${what} is missing (found tag 0x${found.toString(16).padStart(2, '0')} where 0x${tag.toString(16).padStart(2, '0')} belongs)`);
    const { length, headerBytes } = this.lengthAt(this.offset + 1, what);
    if (length > this.remaining - headerBytes) throw new DerError(`the length of ${what} points past the end of the data`);
    const start = this.offset + headerBytes;
    this.offset = start + length;
    return this.bytes.subarray(start, start + length);
  }

  private lengthAt(at: number, what: string): { length: number; headerBytes: number } {
    const first = this.bytes[at]!;
    if (first < 0x80) return { length: first, headerBytes: 2 };
    if (first === 0x80) throw new DerError(`${what} has an indefinite length, which DER does not allow`);
    const count = first & 0x7f;
    if (count > MAX_LENGTH_BYTES) throw new DerError(`${what} is too long`);
    if (this.remaining < 2 + count) throw new DerError(`the data ends inside the length of ${what}`);
    let length = 0;
    for (let i = 1; i <= count; i++) length = length * 256 + this.bytes[at + i]!;
    // DER: the shortest form, so no leading zero byte and no long form for lengths under 128.
    if (this.bytes[at + 1] === 0 || length < 0x80) throw new DerError(`the length of ${what} is not in its shortest (DER) form`);
    return { length, headerBytes: 2 + count };
  }
}

/** Dotted form of an OBJECT IDENTIFIER's content, for messages; undefined when it is not well formed. */
export function oidText(content: Buffer): string | undefined {
  if (content.length === 0 || content.length > 32) return undefined;
  const arcs: number[] = [];
  let value = 0;
  let started = false;
  for (const byte of content) {
    // A leading 0x80 pads an arc, which DER forbids.
    if (!started && byte === 0x80) return undefined;
    started = true;
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) return undefined;
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
      started = false;
    }
  }
  if (started) return undefined;
  const first = arcs.shift()!;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}
