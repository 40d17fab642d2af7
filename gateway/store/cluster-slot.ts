// The Redis Cluster hash slot of a key, as Redis computes it (CLUSTER KEYSLOT): CRC16/XMODEM of the
// key's hash tag (the text between the first '{' and the next '}', when not empty; else the whole
// key) modulo 16384. The store routes each command to the master of its slot with it (a breaker per
// node), and gives a service account an id that shares its record's slot (account-ids.ts).

export const SLOT_COUNT = 16384;

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/** The CRC16/XMODEM register after one more byte. */
export function crc16Step(crc: number, byte: number): number {
  return ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!;
}

/** CRC16/XMODEM of bytes, continuing from `crc` (0 to start): crc16(a + b) = crc16(b, crc16(a)). */
export function crc16Bytes(bytes: Uint8Array, crc = 0): number {
  let value = crc;
  for (const byte of bytes) value = crc16Step(value, byte);
  return value;
}

/** CRC16/XMODEM of the UTF-8 bytes of text, continuing from `crc`; ASCII text is read without encoding it. */
export function crc16(text: string, crc = 0): number {
  let value = crc;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return crc16Bytes(Buffer.from(text.slice(i), 'utf8'), value);
    value = crc16Step(value, code);
  }
  return value;
}

/** The part of the key that Redis hashes: a non-empty {tag}, else the whole key. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

/** The hash slot of a key (0 to 16383). */
export function keySlot(key: string): number {
  return crc16(hashTagOf(key)) % SLOT_COUNT;
}
