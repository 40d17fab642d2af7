// Every gatewayctl command, in the order --help lists them. Each group lives in its own file here;
// add new ones to this list.
import type { Command } from '../command.js';
import { clientCommands } from './clients.js';
import { explainCommand } from './explain.js';
import { hashPasswordCommand } from './hash-password.js';
import { keygenCommand } from './keygen.js';
import { policyCommands } from './policy.js';
import { requestCommand } from './request.js';
import { serviceAccountCommands } from './service-accounts.js';
import { signingKeyCommands } from './signing-keys.js';
import { storeCommands } from './store.js';

export const COMMANDS: Command[] = [
  ...clientCommands,
  ...signingKeyCommands,
  ...serviceAccountCommands,
  ...storeCommands,
  ...policyCommands,
  keygenCommand,
  requestCommand,
  explainCommand,
  hashPasswordCommand,
];
