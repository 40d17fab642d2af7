// gatewayctl hash-password: reads a password from stdin and prints the scrypt hash to put in
// GATEWAY_DASHBOARD_USERS (user:hash). On a terminal the password is read without echo.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import { hashPassword } from '../../dashboard/password-hash.js';

const MIN_LENGTH = 12;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** One line from the terminal, with echo off (the prompt goes to stderr so stdout is just the hash). */
async function promptSilently(prompt: string): Promise<string> {
  process.stderr.write(prompt);
  const muted = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  try {
    return await new Promise<string>((resolve) => rl.once('line', resolve));
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}

export const hashPasswordCommand: Command = {
  group: null,
  name: 'hash-password',
  summary: 'Read a dashboard password from stdin and print its scrypt hash (for GATEWAY_DASHBOARD_USERS=user:hash).',
  usage: 'gatewayctl hash-password < PASSWORD_FILE',
  options: {},
  details: 'On a terminal the password is asked for without echo. From a pipe: echo -n PASSWORD | gatewayctl hash-password',
  async run() {
    const raw = process.stdin.isTTY ? await promptSilently('Password: ') : await readAll(process.stdin);
    // Only the line break a pipe or heredoc adds is dropped; other whitespace is part of the password.
    const password = raw.replace(/\r?\n$/, '');
    if (password.length < MIN_LENGTH) throw new CliError(`the password must be at least ${MIN_LENGTH} characters`, 2);
    console.log(await hashPassword(password));
  },
};
