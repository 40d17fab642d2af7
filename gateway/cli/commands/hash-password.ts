// gatewayctl hash-password: reads a password from stdin and prints the scrypt hash to put in
// GATEWAY_DASHBOARD_USERS (user:hash). On a terminal the password is read without echo.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { readAll, type CliContext } from '../context.js';
import { printLine } from '../output.js';
import { hashPassword } from '../../dashboard/password-hash.js';

const MIN_LENGTH = 12;

/** One line from the terminal, with echo off (the prompt goes to stderr so stdout is just the hash). */
async function promptSilently(context: CliContext, input: NodeJS.ReadableStream, prompt: string): Promise<string> {
  context.err(prompt);
  const muted = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const rl = createInterface({ input, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.once('line', resolve));
  } finally {
    rl.close();
    context.err('\n');
  }
}

export const hashPasswordCommand: Command = {
  group: null,
  name: 'hash-password',
  summary: 'Read a dashboard password from stdin and print its scrypt hash (for GATEWAY_DASHBOARD_USERS=user:hash).',
  usage: 'gatewayctl hash-password < PASSWORD_FILE',
  options: {},
  details: 'On a terminal the password is asked for without echo. From a pipe: echo -n PASSWORD | gatewayctl hash-password',
  async run(_values, _positionals, context) {
    const stdin = context.stdin();
    const raw = stdin.isTTY ? await promptSilently(context, stdin.stream, 'Password: ') : (await readAll(stdin.stream)).toString();
    // Only the line break a pipe or heredoc adds is dropped; other whitespace is part of the password.
    const password = raw.replace(/\r?\n$/, '');
    if (password.length < MIN_LENGTH) throw new CliError(`the password must be at least ${MIN_LENGTH} characters`, 2);
    printLine(context, await hashPassword(password));
  },
};
