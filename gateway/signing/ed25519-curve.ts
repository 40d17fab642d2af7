// Whether 32 bytes decode to a point of edwards25519 at all (RFC 8032 section 5.1.3, steps 2-3). BigInt
// arithmetic, so for registration only: on the hot path node:crypto's verification fails for such keys.

const p = 2n ** 255n - 19n;
/** d = -121665 / 121666 mod p. */
const d = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base % p;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % p;
    b = (b * b) % p;
  }
  return result;
}

/** True when some x satisfies -x² + y² = 1 + d·x²·y², with y read from the bytes (sign bit masked). */
export function decodesToCurvePoint(bytes: Uint8Array): boolean {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i]! & 0x7f : bytes[i]!);
  y %= p;
  const y2 = (y * y) % p;
  const u = (y2 - 1n + p) % p;
  const v = (d * y2 + 1n) % p;
  // x² = u / v has a solution iff u·v is zero or a quadratic residue (Euler's criterion); v ≠ 0 since d is not a square.
  const w = (u * v) % p;
  return w === 0n || modPow(w, (p - 1n) / 2n) === 1n;
}
