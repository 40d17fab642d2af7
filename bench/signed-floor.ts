// The parts of the signed route's floor that the bare proxy does not pay, measured in this process:
// one Ed25519 verification (libsodium, as the gateway verifies) of a signature base of the bench's
// size, and, on Redis, the CPU a client spends on one nonce's round trip (SET NX with a lifetime,
// auto-pipelined from 32 requests in flight, as the gateway sends it). The floor of the signed route
// is the bare proxy forwarding the same requests plus these two.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { Redis } from 'ioredis';
import { verifyEd25519 } from '../gateway/signing/ed25519.js';

const VERIFICATIONS = 4000;
const NONCES = 20_000;
const IN_FLIGHT = 32;

function cpuUs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/** CPU µs of one verification. */
export function ed25519VerificationUs(): number {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const base = `"@method": GET\n"@target-uri": http://127.0.0.1/v1/balance\n"x-access-id": ${'0'.repeat(36)}\n"@signature-params": ("@method" "@target-uri" "x-access-id");created=1;keyid="k";nonce="${randomBytes(16).toString('base64url')}"`;
  const signature = sign(null, Buffer.from(base), privateKey);
  const key = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  for (let i = 0; i < 200; i++) verifyEd25519(base, signature, key);
  const started = process.cpuUsage();
  for (let i = 0; i < VERIFICATIONS; i++) if (!verifyEd25519(base, signature, key)) throw new Error('the floor signature does not verify');
  return cpuUs(started) / VERIFICATIONS;
}

/** CPU µs this process spends per nonce stored in Redis (the keys are removed after). */
export async function nonceRoundTripUs(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { enableAutoPipelining: true });
  try {
    let next = 0;
    const run = async () => {
      while (next < NONCES) await redis.set(`${prefix}floor-nonce:${next++}`, '1', 'EX', 60, 'NX');
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, run));
    next = 0;
    const started = process.cpuUsage();
    await Promise.all(Array.from({ length: IN_FLIGHT }, run));
    return cpuUs(started) / NONCES;
  } finally {
    const keys = Array.from({ length: NONCES }, (_, i) => `${prefix}floor-nonce:${i}`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    redis.disconnect();
  }
}
