// gatewayctl request: a curl-like client that signs a banking request (SIGNING.md) and prints the
// response body. Exits 0 on 2xx/3xx and 1 otherwise, with the status on stderr. A redirect is not
// followed but fails (exit 1, naming the status and the Location's origin): the signed headers and
// the body are never sent to its Location (SIGNING.md section 2).
import { CliError, usageError } from '../cli-error.js';
import type { Command } from '../command.js';
import { printLine } from '../output.js';
import { SIGNED_REQUEST_OPTIONS, signedRequest } from '../signed-request.js';
import { REDIRECT_STATUSES } from '../../signing/index.js';

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
  async run(values, [url], context) {
    if (!url) throw usageError('URL is required');
    const { method, headers, body } = await signedRequest(values, url, context);
    let response: Response;
    try {
      response = await fetch(url, { method, headers, ...(body ? { body } : {}), redirect: 'manual' });
    } catch (error) {
      const cause = (error as Error).cause;
      throw new CliError(`cannot reach ${url}: ${cause instanceof Error ? cause.message : (error as Error).message}`);
    }
    if (values.include) {
      printLine(context, `HTTP ${response.status} ${response.statusText}`);
      response.headers.forEach((value, name) => printLine(context, `${name}: ${value}`));
      printLine(context, '');
    }
    const location = response.headers.get('location');
    if (REDIRECT_STATUSES.includes(response.status) && location !== null) {
      await response.body?.cancel();
      throw new CliError(
        `${new URL(url).origin} answered ${response.status} with a redirect to ${locationOrigin(location, url)}, not followed: a signed request is not sent again to another URL (-i shows the Location; request it yourself if you trust it)`,
      );
    }
    context.outBytes(Buffer.from(await response.arrayBuffer()));
    if (response.status >= 400) {
      context.err(`\ngatewayctl: HTTP ${response.status}\n`);
      return 1;
    }
  },
};

/** Only the Location's origin is named: its path and query may carry what is not for a terminal. */
function locationOrigin(location: string, base: string): string {
  try {
    return new URL(location, base).origin;
  } catch {
    return 'a Location that is not a URL';
  }
}
