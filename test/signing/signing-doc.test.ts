// SIGNING.md's worked example is exact: its digest, signature base and signature are what the
// library computes, and they verify with the published key's public half.
import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  contentDigest,
  headerFields,
  loadPrivateKey,
  requestFromUrl,
  signRequest,
  sshPublicKeyLine,
  verifyRequestSignature,
} from '../../gateway/signing/index.js';
import { REPO_ROOT } from '../helpers/gateway.js';

t.test('the worked example of SIGNING.md', async (t) => {
  const doc = readFileSync(`${REPO_ROOT}SIGNING.md`, 'utf8');
  const pem = /(-----BEGIN PRIVATE KEY-----\n[\s\S]+?\n-----END PRIVATE KEY-----)/.exec(doc)![1]!;
  const key = loadPrivateKey(pem);
  const body = '{"amount":"150.00","currency":"BRL","pix_key":"+5511999990000"}';
  const accessId = '3f2b9c1e-7a4d-4e8f-9b6a-2c1d0e5f4a3b';
  const url = 'https://bank.example.com/v1/transfers?idempotency_key=tx-2024-0001';
  const headers = signRequest({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body,
    accessId,
    privateKey: key,
    created: 1735689600,
    nonce: 'q4Jb2nK8sVx1ZpR7tW3yLg',
  });

  t.ok(doc.includes(`\`Content-Digest: ${contentDigest(body)}\``), 'the digest');
  t.ok(doc.includes(`Signature-Input: ${headers['signature-input']}\n`), 'the Signature-Input');
  t.ok(doc.includes(`Signature: ${headers.signature}\n`), 'the Signature');
  t.ok(doc.includes(`\`${sshPublicKeyLine(key, 'test-key-ed25519')}\``), 'the public line');
  t.ok(doc.includes(`The request, with Access ID \`${accessId}\``));
  const base = /2\. Build the signature base:\n\n```\n([\s\S]+?)\n```/.exec(doc)![1]!;
  const verified = verifyRequestSignature(requestFromUrl('POST', url, headerFields(Object.entries({ 'content-type': 'application/json', ...headers }))), {
    keyid: accessId,
    publicKey: key,
  });
  t.equal(base, verified.base, 'the signature base as printed');
  t.equal(Buffer.byteLength(body), 63, 'the body length the text states');
});
