// HMAC-SHA-256 (RFC 2104) from two one-shot SHA-256 digests (node:crypto's hash()), with the key's
// padded blocks made once per key. createHmac builds and initialises an OpenSSL MAC context on
// every call: in a token request's profile that initialisation alone was 6 % of the CPU and the
// whole HMAC about 13 % (BENCHMARKS.md). The construction is the RFC's, checked against createHmac
// for any key and message (test/oauth/hmac-sha256.property.test.ts).
import { hash } from 'node:crypto';

/** SHA-256's block size in bytes: a longer key is hashed first, a shorter one padded with zeros. */
const BLOCK_BYTES = 64;
const INNER_PAD = 0x36;
const OUTER_PAD = 0x5c;

export class HmacSha256 {
  private readonly innerBlock = Buffer.alloc(BLOCK_BYTES);
  private readonly outerBlock = Buffer.alloc(BLOCK_BYTES);

  constructor(key: Buffer) {
    const block = Buffer.alloc(BLOCK_BYTES);
    (key.length > BLOCK_BYTES ? hash('sha256', key, 'buffer') : key).copy(block);
    for (let i = 0; i < BLOCK_BYTES; i++) {
      this.innerBlock[i] = block[i]! ^ INNER_PAD;
      this.outerBlock[i] = block[i]! ^ OUTER_PAD;
    }
    block.fill(0);
  }

  /** The MAC of the message's UTF-8 bytes. */
  digest(message: string): Buffer {
    const inner = hash('sha256', Buffer.concat([this.innerBlock, Buffer.from(message, 'utf8')]), 'buffer');
    return hash('sha256', Buffer.concat([this.outerBlock, inner]), 'buffer');
  }
}

/**
 * The MAC under whatever key `key()` gives at each call (a store-kept key may be loaded or replaced
 * after start), its blocks made again only when that key's bytes change.
 */
export function hmacOfCurrentKey(key: () => Buffer): (message: string) => Buffer {
  let made: { from: Buffer; hmac: HmacSha256 } | undefined;
  return (message) => {
    const current = key();
    if (made === undefined || !made.from.equals(current)) made = { from: Buffer.from(current), hmac: new HmacSha256(current) };
    return made.hmac.digest(message);
  };
}
