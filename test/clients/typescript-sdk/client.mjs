// Run by test/clients/typescript-sdk.test.ts inside a scratch project where only the packed
// @access-gateway/signing is installed: sends every request of the job with each way the package
// offers, and prints one JSON line per response. Plain JavaScript, as a user's script would be.
import { readFileSync } from 'node:fs';
import { signedFetch, signingInterceptor, signRequest } from '@access-gateway/signing';

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
// The undici the gateway repository has; the package itself never imports it.
const undici = (await import(job.undici)).default;

async function send(client, account, privateKey, request) {
  const url = `${job.gateway}${request.url}`;
  const { method, headers } = request;
  const body = request.body;
  if (client === 'signRequest + fetch') {
    const added = signRequest({ method, url, headers, body, accessId: account.accessId, privateKey });
    const response = await fetch(url, { method, headers: { ...headers, ...added }, body });
    return { status: response.status, echoed: await response.json() };
  }
  if (client === 'signedFetch') {
    const response = await signedFetch(url, { method, headers, body, accessId: account.accessId, privateKey });
    return { status: response.status, echoed: await response.json() };
  }
  const dispatcher = new undici.Agent().compose(signingInterceptor({ accessId: account.accessId, privateKey }));
  try {
    if (client === 'undici.request + signingInterceptor') {
      const response = await undici.request(url, { method, headers, body, dispatcher });
      return { status: response.statusCode, echoed: await response.body.json() };
    }
    // undici's fetch hands the dispatcher a stream, even for a string body.
    const response = await undici.fetch(url, { method, headers, body, dispatcher });
    return { status: response.status, echoed: await response.json() };
  } finally {
    await dispatcher.close();
  }
}

for (const account of job.accounts) {
  // As a user would pass a key file: its bytes, or its text.
  const privateKey = account.asBytes ? readFileSync(account.keyFile) : readFileSync(account.keyFile, 'utf8');
  for (const client of job.clients) {
    for (const request of job.requests) {
      const { status, echoed } = await send(client, account, privateKey, request);
      console.log(JSON.stringify({ account: account.name, client, method: request.method, url: request.url, status, echoed }));
    }
  }
}
