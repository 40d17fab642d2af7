// gatewayctl request: a curl-like client that signs a banking request (DESIGN 2.2) and prints the
// response body. Exits 0 on 2xx/3xx and 1 otherwise, with the status on stderr.
import { readFileSync } from 'node:fs';
import { CliError } from '../admin-client.js';
import type { Command } from '../command.js';
import { signRequest } from '../../signing/sign.js';

function headerOptions(values: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of Array.isArray(values) ? (values as string[]) : []) {
    const colon = line.indexOf(':');
    if (colon < 1) throw new CliError(`-H ${JSON.stringify(line)} is not "Name: value"`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function bodyOption(values: Record<string, unknown>): Buffer | undefined {
  if (typeof values.data === 'string') return Buffer.from(values.data);
  if (typeof values['data-file'] === 'string') return values['data-file'] === '-' ? readFileSync(0) : readFileSync(values['data-file']);
  return undefined;
}

export const requestCommand: Command = {
  group: null,
  name: 'request',
  summary: 'Sign and send a banking API request (like curl), print the response.',
  usage:
    'gatewayctl request [-X METHOD] URL [-H "Name: value"]... [-d DATA | --data-file FILE|-] [-i] --access-id ID (or GATEWAY_ACCESS_ID) --key FILE (or GATEWAY_PRIVATE_KEY_FILE)',
  options: {
    request: { type: 'string', short: 'X' },
    header: { type: 'string', short: 'H', multiple: true },
    data: { type: 'string', short: 'd' },
    'data-file': { type: 'string' },
    include: { type: 'boolean', short: 'i' },
    'access-id': { type: 'string' },
    key: { type: 'string' },
  },
  async run(values, [url]) {
    if (!url) throw new CliError('URL is required');
    const accessId = (values['access-id'] as string | undefined) ?? process.env.GATEWAY_ACCESS_ID;
    const keyFile = (values.key as string | undefined) ?? process.env.GATEWAY_PRIVATE_KEY_FILE;
    if (!accessId) throw new CliError('--access-id (or GATEWAY_ACCESS_ID) is required');
    if (!keyFile) throw new CliError('--key FILE (or GATEWAY_PRIVATE_KEY_FILE) is required');
    const body = bodyOption(values);
    const method = ((values.request as string | undefined) ?? (body ? 'POST' : 'GET')).toUpperCase();
    const headers = headerOptions(values.header);
    if (body && !headers['content-type']) headers['content-type'] = 'application/json';
    let privateKey: string;
    try {
      privateKey = readFileSync(keyFile, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read the key file ${keyFile}: ${(error as Error).message}`);
    }
    let signed: Record<string, string>;
    try {
      signed = signRequest({ method, url, headers, ...(body ? { body } : {}), accessId, privateKey });
    } catch (error) {
      throw new CliError(`cannot sign the request: ${(error as Error).message}`);
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers: { ...headers, ...signed }, ...(body ? { body } : {}) });
    } catch (error) {
      const cause = (error as Error).cause;
      throw new CliError(`cannot reach ${url}: ${cause instanceof Error ? cause.message : (error as Error).message}`);
    }
    if (values.include) {
      console.log(`HTTP ${response.status} ${response.statusText}`);
      response.headers.forEach((value, name) => console.log(`${name}: ${value}`));
      console.log('');
    }
    process.stdout.write(Buffer.from(await response.arrayBuffer()));
    if (response.status >= 400) {
      console.error(`\ngatewayctl: HTTP ${response.status}`);
      return 1;
    }
  },
};
