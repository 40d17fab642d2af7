// Password hashes for dashboard users: scrypt$N$r$p$salt$hash (salt and hash base64url), as
// `gatewayctl hash-password` prints them. Slow on purpose: these are human-chosen passwords.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const DEFAULT_COST = { N: 32_768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
// Bounds on parameters read from configuration, so a bad hash cannot exhaust memory or CPU.
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;

interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, cost: ScryptCost, length: number): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node's default cap (32 MiB) is too tight for N = 2^15, r = 8.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost, KEY_LENGTH);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface ParsedHash {
  cost: ScryptCost;
  salt: Buffer;
  key: Buffer;
}

export function parsePasswordHash(encoded: string): ParsedHash | undefined {
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(encoded);
  if (!match) return undefined;
  const cost = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  const powerOfTwo = cost.N > 1 && (cost.N & (cost.N - 1)) === 0;
  if (!powerOfTwo || cost.N > MAX_N || cost.r < 1 || cost.r > MAX_R || cost.p < 1 || cost.p > MAX_P) return undefined;
  const salt = Buffer.from(match[4]!, 'base64url');
  const key = Buffer.from(match[5]!, 'base64url');
  if (salt.length < 8 || key.length < 16) return undefined;
  return { cost, salt, key };
}

/** True when the password matches; false for a wrong password or an unusable hash. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parsePasswordHash(encoded);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.cost, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/** Spends the same work as a real check, so an unknown username takes as long as a wrong password. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await derive(password, Buffer.alloc(16), DEFAULT_COST, KEY_LENGTH);
}
