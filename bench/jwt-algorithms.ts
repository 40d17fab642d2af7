// What one access token costs to sign and to verify with each algorithm the gateway offers, in
// the bench process: signed with node:crypto as the token endpoint signs (compact-jws.ts), verified
// with jose as the Bearer route verifies a token it has not seen yet (later requests hit the
// verified-token cache). CPU time of this process per operation.
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import { JWT_ALGORITHMS, type JwtAlgorithm } from '../gateway/config/settings.js';
import { signCompactJws } from '../gateway/oauth/compact-jws.js';

export interface AlgorithmCost {
  alg: JwtAlgorithm;
  signUs: number;
  verifyUs: number;
  tokenBytes: number;
}

/** Rounds of each algorithm in turn, so that a busy moment of the machine lands on all of them; the median round is kept. */
const ROUNDS = 5;
const PER_ROUND = 200;

function keyPair(alg: JwtAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519');
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

function cpuMicroseconds(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One round of one algorithm: CPU µs per signature and per verification. */
async function round(
  alg: JwtAlgorithm,
  { privateKey, publicKey }: ReturnType<typeof keyPair>,
): Promise<{ signUs: number; verifyUs: number; tokenBytes: number }> {
  const iat = Math.floor(Date.now() / 1000);
  const audience = 'http://gateway.bench.test';
  const tokens: string[] = [];
  const signStart = cpuMicroseconds();
  for (let i = 0; i < PER_ROUND; i++) {
    const claims = { iss: audience, sub: 'client', aud: audience, client_id: 'client', scope: 'sales', iat, exp: iat + 900, jti: randomUUID() };
    tokens.push(signCompactJws({ alg, kid: 'bench', typ: 'at+jwt' }, claims, privateKey));
  }
  const signUs = (cpuMicroseconds() - signStart) / PER_ROUND;
  const verifyStart = cpuMicroseconds();
  for (const token of tokens) await jwtVerify(token, publicKey, { algorithms: [alg], typ: 'at+jwt', issuer: audience, audience });
  const verifyUs = (cpuMicroseconds() - verifyStart) / PER_ROUND;
  return { signUs, verifyUs, tokenBytes: tokens[0]!.length };
}

export async function measureJwtAlgorithms(): Promise<AlgorithmCost[]> {
  const keys = JWT_ALGORITHMS.map((alg) => ({ alg, pair: keyPair(alg) }));
  for (const { alg, pair } of keys) await round(alg, pair); // warm-up
  const rounds = new Map<JwtAlgorithm, Awaited<ReturnType<typeof round>>[]>(JWT_ALGORITHMS.map((alg) => [alg, []]));
  for (let i = 0; i < ROUNDS; i++) for (const { alg, pair } of keys) rounds.get(alg)!.push(await round(alg, pair));
  return JWT_ALGORITHMS.map((alg) => {
    const measured = rounds.get(alg)!;
    return { alg, signUs: median(measured.map((r) => r.signUs)), verifyUs: median(measured.map((r) => r.verifyUs)), tokenBytes: measured[0]!.tokenBytes };
  });
}

export function describeJwtAlgorithms(costs: readonly AlgorithmCost[]): string[] {
  return [
    `JWT per algorithm (the bench process, CPU µs, median of ${ROUNDS} rounds of ${PER_ROUND}; RS256 with a 2048-bit key): signed as the token endpoint signs, verified as the Bearer route verifies a token it has not seen`,
    ...costs.map(
      ({ alg, signUs, verifyUs, tokenBytes }) =>
        `  ${alg.padEnd(6)} sign ${signUs.toFixed(1).padStart(6)} µs   verify ${verifyUs.toFixed(1).padStart(6)} µs   token ${tokenBytes} bytes`,
    ),
  ];
}
