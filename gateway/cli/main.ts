#!/usr/bin/env node
// gatewayctl: manage credentials through the admin API, and sign requests as an API client.
import { COMMANDS } from './commands/index.js';
import type { CliContext } from './context.js';
import { runCli } from './program.js';

/** The process's own environment and streams: the only place the CLI touches them. */
const processContext: CliContext = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  outBytes: (bytes) => void process.stdout.write(bytes),
  env: process.env,
  stdin: () => ({ isTTY: process.stdin.isTTY === true, stream: process.stdin }),
  columns: {
    out: process.stdout.isTTY ? process.stdout.columns : undefined,
    err: process.stderr.isTTY ? process.stderr.columns : undefined,
  },
};

process.exitCode = await runCli(process.argv.slice(2), COMMANDS, processContext);
