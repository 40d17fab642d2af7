// gatewayctl keygen: a new Ed25519 key pair for a service account. The private key is written as
// PKCS#8 PEM (mode 0600; openssl, Python and this CLI read it); the ssh-ed25519 line is printed.
import { existsSync, writeFileSync } from 'node:fs';
import { CliError, usageError } from '../cli-error.js';
import type { Command } from '../command.js';
import { printLine } from '../output.js';
import { generateSigningKey } from '../../signing/index.js';

export const keygenCommand: Command = {
  group: null,
  name: 'keygen',
  summary: 'Generate an Ed25519 key pair: writes the private key file, prints the ssh-ed25519 public line.',
  usage: 'gatewayctl keygen --out FILE [--comment TEXT] [--force]',
  options: {
    out: {
      type: 'string',
      short: 'o',
      value: 'FILE',
      required: true,
      description: 'where the private key is written (mode 0600); the public key goes to FILE.pub',
    },
    comment: { type: 'string', value: 'TEXT', description: 'the comment at the end of the ssh-ed25519 line, e.g. payroll@example' },
    force: { type: 'boolean', description: 'replace FILE and FILE.pub if they exist' },
  },
  async run(values, _positionals, context) {
    const out = values.out;
    if (typeof out !== 'string' || out === '') throw usageError('--out FILE is required (where the private key is written)');
    if (!values.force && (existsSync(out) || existsSync(`${out}.pub`))) throw new CliError(`${out} already exists; pass --force to replace it`);
    const comment = typeof values.comment === 'string' ? values.comment : undefined;
    const { privateKeyPem, publicKeyLine } = generateSigningKey(comment);
    try {
      writeFileSync(out, privateKeyPem, { mode: 0o600 });
      writeFileSync(`${out}.pub`, `${publicKeyLine}\n`, { mode: 0o644 });
    } catch (error) {
      throw new CliError(`cannot write ${out}: ${(error as Error).message}`);
    }
    printLine(context, publicKeyLine);
    context.err(`Private key written to ${out} (keep it secret); public key also in ${out}.pub.\n`);
  },
};
