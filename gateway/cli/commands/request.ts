// gatewayctl request: a curl-like client that signs a banking request (DESIGN 2.2) and prints the
// response body. Exits 0 on 2xx/3xx and 1 otherwise, with the status on stderr.
import { CliError, usageError } from '../cli-error.js';
import type { Command } from '../command.js';
import { SIGNED_REQUEST_OPTIONS, signedRequest } from '../signed-request.js';

export const requestCommand: Command = {
  group: null,
  name: 'request',
  summary: 'Sign and send a banking API request (like curl), print the response.',
  usage:
    'gatewayctl request [-X METHOD] URL [-H "Name: value"]... [-d DATA | --data-file FILE|-] [-i] --access-id ID (or GATEWAY_ACCESS_ID) --key FILE (or GATEWAY_PRIVATE_KEY_FILE)',
  arguments: [{ name: 'URL', description: 'the absolute URL, e.g. https://gateway.example.com/v1/balance' }],
  options: {
    ...SIGNED_REQUEST_OPTIONS,
    include: { type: 'boolean', short: 'i', description: 'print the response status and headers before the body' },
  },
  details: 'To see what would be signed without sending anything: gatewayctl explain, with the same options.',
  async run(values, [url]) {
    if (!url) throw usageError('URL is required');
    const { method, headers, body } = signedRequest(values, url);
    let response: Response;
    try {
      response = await fetch(url, { method, headers, ...(body ? { body } : {}) });
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
