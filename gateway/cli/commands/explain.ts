// gatewayctl explain: the RFC 9421 signature base a request would be signed over, and the headers
// it would carry, without sending it. For client authors whose own signatures are refused: their
// base can be compared line by line with this one (or with a 401's signature_base).
import { usageError } from '../cli-error.js';
import type { Command } from '../command.js';
import { printJson, printLine } from '../output.js';
import { SIGNED_REQUEST_OPTIONS, signedRequest } from '../signed-request.js';

function createdOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw usageError('--created must be a UNIX time in whole seconds');
  return Number(value);
}

export const explainCommand: Command = {
  group: null,
  name: 'explain',
  summary: 'Print the RFC 9421 signature base and the headers of a signed banking request, without sending it.',
  usage:
    'gatewayctl explain [-X METHOD] URL [-H "Name: value"]... [-d DATA | --data-file FILE|-] --access-id ID --key FILE [--created UNIX_TIME] [--nonce TEXT] [--json]',
  arguments: [{ name: 'URL', description: 'the absolute URL the request would go to; its host is the signed @authority' }],
  options: {
    ...SIGNED_REQUEST_OPTIONS,
    created: { type: 'string', value: 'UNIX_TIME', description: 'the signature’s created parameter (default: now), to reproduce a base' },
    nonce: { type: 'string', value: 'TEXT', description: 'the signature’s nonce (default: random), to reproduce a base' },
    json: { type: 'boolean', description: 'print { method, url, base, headers } as JSON' },
  },
  details: 'Nothing is sent: the printed headers are valid once, within the signature window, if sent as they are.',
  async run(values, [url], context) {
    if (!url) throw usageError('URL is required');
    const nonce = typeof values.nonce === 'string' ? values.nonce : undefined;
    const created = createdOption(values.created);
    const { base, ...request } = await signedRequest(values, url, context, {
      ...(created === undefined ? {} : { created }),
      ...(nonce === undefined ? {} : { nonce }),
    });
    if (values.json) return printJson(context, { method: request.method, url, base, headers: request.headers });
    printLine(context, `${request.method} ${url} (not sent)\n`);
    printLine(context, 'Signature base (RFC 9421 section 2.5): the exact bytes signed, lines joined by LF, no final newline:');
    printLine(context, base);
    printLine(context, '\nHeaders the request would be sent with:');
    for (const [name, value] of Object.entries(request.headers)) printLine(context, `${name}: ${value}`);
  },
};
