// The token endpoint's floor: a bare node:http server that does only what issuing a token needs.
// It reads the form (at most 4 KiB), checks the client's secret as the gateway stores it (an HMAC
// compared in constant time) and signs one EdDSA JWT with libsodium, as the gateway does. No
// routing, no schema, no logging, no metrics, no rate limit: what any server must pay.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { sodium } from '../gateway/signing/sodium.js';

const [port, clientId, clientSecret] = process.argv.slice(2) as [string, string, string];
const MAX_BODY = 4096;
const hashKey = randomBytes(32);
const hashOf = (secret: string) => createHmac('sha256', hashKey).update(secret).digest();
const storedHash = hashOf(clientSecret);

const seed = randomBytes(32);
const publicKey = Buffer.alloc(32);
const secretKey = Buffer.alloc(64);
if (!sodium) throw new Error('sodium-native is not installed: the floor signs as the gateway does, with libsodium');
sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed);
const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'at+jwt', kid: 'floor' })).toString('base64url');

function token(scope: string): string {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: 'http://floor.test',
    sub: clientId,
    aud: 'http://floor.test',
    client_id: clientId,
    scope,
    iat: now,
    exp: now + 86400,
    jti: randomUUID(),
  };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = Buffer.alloc(64);
  sodium!.crypto_sign_detached(signature, Buffer.from(input), secretKey);
  return `${input}.${signature.toString('base64url')}`;
}

createServer((request, response) => {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  request.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('latin1'));
    const secret = form.get('client_secret') ?? '';
    const ok = size <= MAX_BODY && form.get('client_id') === clientId && timingSafeEqual(hashOf(secret), storedHash);
    const body = ok ? JSON.stringify({ access_token: token(form.get('scope') ?? ''), token_type: 'Bearer', expires_in: 86400 }) : '{"error":"invalid_client"}';
    response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body);
  });
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
