// A slow, obviously-written edwards25519 reference (RFC 8032 section 5.1, BigInt) that tests use to
// classify encodings independently of the gateway's byte-level checks: canonical or not, on the
// curve or not, and the order of the point (small, mixed or in the prime-order subgroup).
import { createHash } from 'node:crypto';

export const p = 2n ** 255n - 19n;
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const d = mod(-121665n * inverse(121666n));
const SQRT_M1 = power(2n, (p - 1n) / 4n);

type Point = readonly [x: bigint, y: bigint];
const IDENTITY: Point = [0n, 1n];
export const BASE_POINT: Point = [15112221349535400772501151409588531511454012693041857206046113283949847762202n, mod(4n * inverse(5n))];

function mod(a: bigint): bigint {
  const r = a % p;
  return r < 0n ? r + p : r;
}

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % p;
    b = (b * b) % p;
  }
  return result;
}

function inverse(a: bigint): bigint {
  return power(a, p - 2n);
}

export function littleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

export function toLittleEndian(n: bigint, length = 32): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}

export interface DecodedPoint {
  point: Point;
  /** y < p and not (x = 0 with the sign bit set): the one encoding RFC 8032 accepts. */
  canonical: boolean;
}

/** Decodes leniently (y reduced mod p, any sign bit for x = 0); undefined when no x exists. */
export function decodePoint(bytes: Uint8Array): DecodedPoint | undefined {
  const sign = bytes[31]! >> 7;
  const yRaw = littleEndian(bytes) & ((1n << 255n) - 1n);
  const y = mod(yRaw);
  const u = mod(y * y - 1n);
  const v = mod(d * y * y + 1n);
  let x = mod(u * power(v, 3n) * power(u * power(v, 7n), (p - 5n) / 8n));
  if (mod(v * x * x) !== u) {
    if (mod(v * x * x) !== mod(-u)) return undefined;
    x = mod(x * SQRT_M1);
  }
  const canonical = yRaw < p && !(x === 0n && sign === 1);
  if (Number(x & 1n) !== sign) x = mod(-x);
  return { point: [x, y], canonical };
}

export function encodePoint([x, y]: Point): Buffer {
  const out = toLittleEndian(y);
  if (x & 1n) out[31]! |= 0x80;
  return out;
}

type Extended = readonly [X: bigint, Y: bigint, Z: bigint, T: bigint];

const extended = ([x, y]: Point): Extended => [x, y, 1n, mod(x * y)];

function affine([X, Y, Z]: Extended): Point {
  const zInverse = inverse(Z);
  return [mod(X * zInverse), mod(Y * zInverse)];
}

/** RFC 8032 section 5.1.4's complete addition in extended coordinates (no inversion, also doubles). */
function addExtended([X1, Y1, Z1, T1]: Extended, [X2, Y2, Z2, T2]: Extended): Extended {
  const a = mod((Y1 - X1) * (Y2 - X2));
  const b = mod((Y1 + X1) * (Y2 + X2));
  const c = mod(T1 * 2n * d * T2);
  const dd = mod(Z1 * 2n * Z2);
  const e = b - a;
  const f = dd - c;
  const g = dd + c;
  const h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

export function add(a: Point, b: Point): Point {
  return affine(addExtended(extended(a), extended(b)));
}

export function multiply(k: bigint, point: Point): Point {
  let result = extended(IDENTITY);
  for (let q = extended(point), e = k; e > 0n; e >>= 1n, q = addExtended(q, q)) if (e & 1n) result = addExtended(result, q);
  return affine(result);
}

const isIdentity = ([x, y]: Point) => x === 0n && y === 1n;

/** small: in the 8-torsion; prime: in the order-L subgroup; mixed: neither. */
export function pointOrder(point: Point): 'small' | 'prime' | 'mixed' {
  if (isIdentity(multiply(8n, point))) return 'small';
  return isIdentity(multiply(L, point)) ? 'prime' : 'mixed';
}

/** RFC 8032's k = SHA-512(R || A || M) mod L, over the bytes as sent. */
export function challenge(r: Uint8Array, a: Uint8Array, message: Uint8Array): bigint {
  return littleEndian(createHash('sha512').update(r).update(a).update(message).digest()) % L;
}

/** The cofactorless equation [S]B = R + [k]A, with the bytes as sent (no strictness at all). */
export function verifiesCofactorless(message: Uint8Array, publicKey: Uint8Array, signature: Uint8Array): boolean {
  const a = decodePoint(publicKey);
  const r = decodePoint(signature.subarray(0, 32));
  if (!a || !r) return false;
  const k = challenge(signature.subarray(0, 32), publicKey, message);
  const left = multiply(littleEndian(signature.subarray(32)), BASE_POINT);
  const right = add(r.point, multiply(k, a.point));
  return left[0] === right[0] && left[1] === right[1];
}
