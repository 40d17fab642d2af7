#!/usr/bin/env node
// gatewayctl: manage credentials through the admin API, and sign requests as an API client.
import { COMMANDS } from './commands/index.js';
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), COMMANDS);
