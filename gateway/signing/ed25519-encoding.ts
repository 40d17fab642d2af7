// Byte-level strictness checks on Ed25519 encodings (RFC 8032 section 5.1.3 and 5.1.7, plus the
// small-order blocklist libsodium applies). Only byte comparisons: these run on every signed request.

const ENCODING_BYTES = 32;

/** L, the prime order of the base point, little-endian. */
const GROUP_ORDER = Uint8Array.from(Buffer.from('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010', 'hex'));

/**
 * The y coordinates (little-endian, sign bit clear) of the 8 points of small order. x = ±sqrt(...)
 * is fixed by the sign bit, so comparing with the sign bit masked covers both x of each y, and the
 * x = 0 encodings with the sign bit set. Non-canonical y (y ≥ p) is refused before this list.
 */
const SMALL_ORDER_Y: readonly { y: Uint8Array; order: 1 | 2 | 4 | 8 }[] = (
  [
    ['0100000000000000000000000000000000000000000000000000000000000000', 1], // (0, 1): the identity
    ['ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 2], // (0, -1)
    ['0000000000000000000000000000000000000000000000000000000000000000', 4], // (±sqrt(-1), 0)
    ['c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 8],
    ['26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 8],
  ] as const
).map(([hex, order]) => ({ y: Uint8Array.from(Buffer.from(hex, 'hex')), order }));

/** S < L (RFC 8032 5.1.7 step 1): refuses S + L and other malleable forms of the same signature. */
export function isCanonicalScalar(bytes: Uint8Array, offset = 0): boolean {
  // Compares from the most significant byte; a random S already differs from L at byte 31.
  for (let i = ENCODING_BYTES - 1; i >= 0; i--) {
    const s = bytes[offset + i]!;
    const l = GROUP_ORDER[i]!;
    if (s !== l) return s < l;
  }
  return false;
}

/** y ≥ p = 2^255 - 19: the 19 values 2^255-19 … 2^255-1, whose top 31 bytes are all ones. */
export function hasUnreducedY(bytes: Uint8Array, offset = 0): boolean {
  if ((bytes[offset + 31]! & 0x7f) !== 0x7f || bytes[offset]! < 0xed) return false;
  for (let i = 1; i < 31; i++) if (bytes[offset + i] !== 0xff) return false;
  return true;
}

/** x = 0 (y = ±1) with the sign bit set: a second encoding of the identity or of (0, -1). */
export function hasNegativeZeroX(bytes: Uint8Array, offset = 0): boolean {
  return (bytes[offset + 31]! & 0x80) !== 0 && (sameY(bytes, offset, SMALL_ORDER_Y[0]!.y) || sameY(bytes, offset, SMALL_ORDER_Y[1]!.y));
}

/** The order (1, 2, 4 or 8) of a point of small order with a canonical y, else undefined. */
export function smallOrder(bytes: Uint8Array, offset = 0): 1 | 2 | 4 | 8 | undefined {
  for (const { y, order } of SMALL_ORDER_Y) if (sameY(bytes, offset, y)) return order;
  return undefined;
}

/**
 * The strict rules for a point (A or R) on the hot path: canonical y and not of small order (which
 * also excludes the x = 0 encodings with the sign bit set). Whether it is on the curve at all is left
 * to the verification itself, which fails for such points.
 */
export function isStrictPoint(bytes: Uint8Array, offset = 0): boolean {
  return !hasUnreducedY(bytes, offset) && smallOrder(bytes, offset) === undefined;
}

function sameY(bytes: Uint8Array, offset: number, y: Uint8Array): boolean {
  if (bytes[offset] !== y[0] || (bytes[offset + 31]! & 0x7f) !== y[31]) return false;
  for (let i = 1; i < 31; i++) if (bytes[offset + i] !== y[i]) return false;
  return true;
}
