#!/usr/bin/env node
// gatewayctl: manage credentials through the admin API, and sign requests as an API client.
import { parseArgs } from 'node:util';
import { CliError } from './admin-client.js';
import type { Command } from './command.js';
import { clientCommands } from './commands/clients.js';
import { keygenCommand } from './commands/keygen.js';
import { requestCommand } from './commands/request.js';
import { serviceAccountCommands } from './commands/service-accounts.js';
import { hashPasswordCommand } from './commands/hash-password.js';

// Each command group lives in its own file under commands/; add new groups here.
const COMMANDS: Command[] = [...clientCommands, ...serviceAccountCommands, keygenCommand, requestCommand, hashPasswordCommand];

function usage(): string {
  return ['Usage: gatewayctl <command> [options]', '', ...COMMANDS.map((c) => `  ${c.usage}\n      ${c.summary}`), '', 'Admin options: --admin-url (GATEWAY_ADMIN_URL), --admin-token (GATEWAY_ADMIN_TOKEN).'].join('\n');
}

function findCommand(args: string[]): { command: Command; rest: string[] } | undefined {
  const [first, second] = args;
  const grouped = COMMANDS.find((c) => c.group === first && c.name === second);
  if (grouped) return { command: grouped, rest: args.slice(2) };
  const single = COMMANDS.find((c) => c.group === null && c.name === first);
  return single ? { command: single, rest: args.slice(1) } : undefined;
}

export async function runCli(args: string[]): Promise<number> {
  if (args.length === 0 || args[0] === '--help' || args[0] === 'help') {
    console.log(usage());
    return 0;
  }
  const found = findCommand(args);
  if (!found) {
    console.error(`Unknown command: ${args.slice(0, 2).join(' ')}\n\n${usage()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({ args: found.rest, options: found.command.options, allowPositionals: true, strict: true });
    return (await found.command.run(values as Record<string, string | boolean | undefined>, positionals)) ?? 0;
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`gatewayctl: ${error.message}`);
      return error.exitCode;
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`gatewayctl: ${(error as Error).message}\nUsage: ${found.command.usage}`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = await runCli(process.argv.slice(2));
