// What `request` and `explain` share: the curl-like options that describe a banking request, and
// the request they describe, signed by the signing library exactly as it will be sent.
import { readFileSync } from 'node:fs';
import { CliError, usageError } from './cli-error.js';
import type { OptionSpec, OptionValues } from './command.js';
import { readAll, type CliContext } from './context.js';
import { signRequestWithBase } from '../signing/index.js';

export const SIGNED_REQUEST_OPTIONS: Record<string, OptionSpec> = {
  request: { type: 'string', short: 'X', value: 'METHOD', description: 'the HTTP method (default: POST with a body, GET without)' },
  header: {
    type: 'string',
    short: 'H',
    multiple: true,
    value: '"Name: value"',
    description: 'a header to send; repeat for more (with a body, content-type defaults to application/json)',
  },
  data: { type: 'string', short: 'd', value: 'DATA', description: 'the request body' },
  'data-file': { type: 'string', value: 'FILE', description: 'read the request body from FILE, or from stdin when FILE is -' },
  'access-id': { type: 'string', value: 'ID', description: 'the service account’s Access ID, sent as x-access-id (default: GATEWAY_ACCESS_ID)' },
  key: { type: 'string', value: 'FILE', description: 'the Ed25519 private key, PKCS#8 PEM or OpenSSH (default: GATEWAY_PRIVATE_KEY_FILE)' },
};

export interface SignedRequest {
  method: string;
  url: string;
  /** Every header the request is sent with: the -H ones, content-type, and the signature's. */
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** The RFC 9421 signature base that was signed. */
  base: string;
}

function headerOptions(values: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of Array.isArray(values) ? (values as string[]) : []) {
    const colon = line.indexOf(':');
    if (colon < 1) throw usageError(`-H ${JSON.stringify(line)} is not "Name: value"`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function readFailure(option: string, file: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  return new CliError(`cannot read ${option} ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
}

function readFile(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw readFailure(option, file, error);
  }
}

async function readStdin(option: string, context: Pick<CliContext, 'stdin'>): Promise<Buffer> {
  try {
    return await readAll(context.stdin().stream);
  } catch (error) {
    throw readFailure(option, '-', error);
  }
}

async function bodyOption(values: OptionValues, context: Pick<CliContext, 'stdin'>): Promise<Buffer | undefined> {
  if (typeof values.data === 'string' && typeof values['data-file'] === 'string') throw usageError('give -d or --data-file, not both');
  if (typeof values.data === 'string') return Buffer.from(values.data);
  if (values['data-file'] === '-') return readStdin('--data-file', context);
  if (typeof values['data-file'] === 'string') return readFile('--data-file', values['data-file']);
  return undefined;
}

function absoluteUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`${JSON.stringify(url)} is not an absolute URL, e.g. https://gateway.example.com/v1/balance`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw usageError(`${url} is not an http or https URL`);
  return url;
}

/**
 * The request the options describe, with the headers signRequest adds; `signature` fixes created and
 * nonce (for explain). The access id and key file default to the run's environment; `--data-file -` reads its stdin.
 */
export async function signedRequest(
  values: OptionValues,
  url: string,
  context: Pick<CliContext, 'env' | 'stdin'>,
  signature: { created?: number; nonce?: string } = {},
): Promise<SignedRequest> {
  absoluteUrl(url);
  const accessId = (values['access-id'] as string | undefined) ?? context.env.GATEWAY_ACCESS_ID;
  const keyFile = (values.key as string | undefined) ?? context.env.GATEWAY_PRIVATE_KEY_FILE;
  if (!accessId) throw usageError('--access-id (or GATEWAY_ACCESS_ID) is required');
  if (!keyFile) throw usageError('--key FILE (or GATEWAY_PRIVATE_KEY_FILE) is required');
  const body = await bodyOption(values, context);
  const method = ((values.request as string | undefined) ?? (body ? 'POST' : 'GET')).toUpperCase();
  const headers = headerOptions(values.header);
  if (body && !headers['content-type']) headers['content-type'] = 'application/json';
  const privateKey = readFile('the key file', keyFile).toString('utf8');
  let signed: { headers: Record<string, string>; base: string };
  try {
    signed = signRequestWithBase({ method, url, headers, ...(body ? { body } : {}), accessId, privateKey, ...signature });
  } catch (error) {
    throw new CliError(`cannot sign the request: ${(error as Error).message}`);
  }
  return { method, url, headers: { ...headers, ...signed.headers }, body, base: signed.base };
}
