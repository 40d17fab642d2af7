// gatewayctl --help and -h: every command and group answers both with its usage and every option
// described (run in process, walking the command list), and the real binary does too.
import t from 'tap';
import { COMMANDS } from '../../gateway/cli/commands/index.js';
import { GROUPS } from '../../gateway/cli/command.js';
import { commandPath } from '../../gateway/cli/program.js';
import { runCli, runCliProcess } from '../helpers/cli.js';

async function help(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const { code, stdout, stderr } = await runCli(args);
  return { code, out: stdout, err: stderr };
}

/** Commander wraps descriptions to the terminal's width: compare with runs of spaces made one. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

t.test('each command answers --help and -h with its usage and every option described', async (t) => {
  t.ok(COMMANDS.length >= 13, 'the list has every command, explain included');
  for (const command of COMMANDS) {
    const path = commandPath(command).split(' ');
    for (const flag of ['--help', '-h']) {
      const { code, out, err } = await help([...path, flag]);
      const name = `gatewayctl ${path.join(' ')} ${flag}`;
      t.equal(code, 0, `${name} exits 0`);
      t.equal(err, '', `${name} writes nothing to stderr`);
      t.match(out, new RegExp(`^Usage: gatewayctl ${path.join(' ')}\\b`), `${name} starts with the usage`);
      t.ok(flat(out).includes(flat(command.summary)), `${name} says what the command does`);
      for (const [option, spec] of Object.entries(command.options)) {
        t.ok(spec.description.length > 10, `${name}: --${option} has a description`);
        t.ok(flat(out).includes(`--${option}`), `${name} lists --${option}`);
        t.ok(flat(out).includes(flat(spec.description)), `${name} describes --${option}`);
        if (spec.short) t.ok(out.includes(`-${spec.short}, --${option}`), `${name} shows -${spec.short}`);
      }
      for (const argument of command.arguments ?? [])
        t.ok(flat(out).includes(`${argument.name} ${flat(argument.description)}`), `${name} describes ${argument.name}`);
      t.match(out, /-h, --help\s+show this help/);
    }
  }
});

t.test('each group and the program answer --help, -h and help', async (t) => {
  for (const group of Object.keys(GROUPS)) {
    for (const args of [
      [group, '--help'],
      [group, '-h'],
      ['help', group],
    ]) {
      const { code, out } = await help(args);
      t.equal(code, 0, args.join(' '));
      t.match(out, `Usage: gatewayctl ${group}`);
      for (const command of COMMANDS.filter((c) => c.group === group))
        t.match(out, new RegExp(`^  ${command.name}\\b`, 'm'), `${args.join(' ')} lists ${command.name}`);
    }
  }
  for (const args of [[], ['-h'], ['--help'], ['help']]) {
    const { code, out } = await help(args);
    t.equal(code, 0, `gatewayctl ${args.join(' ')}`);
    for (const command of COMMANDS) t.ok(out.includes(command.usage), `gatewayctl ${args.join(' ')} shows ${commandPath(command)}`);
  }
});

// A separate process: the help main.ts prints with the process's own stdout and exit code.
t.test('the real binary: gatewayctl -h and request --help', async (t) => {
  const top = await runCliProcess(['-h']);
  t.equal(top.code, 0, top.stderr);
  t.match(top.stdout, /^Usage: gatewayctl \[options\] \[command\]/);
  t.match(top.stdout, /explain \[options\] <URL>/);
  const request = await runCliProcess(['request', '--help']);
  t.equal(request.code, 0, request.stderr);
  t.equal(request.stderr, '');
  t.match(request.stdout, /^Usage: gatewayctl request /);
  t.match(request.stdout, /-X, --request <METHOD>\s+the HTTP method/);
  t.match(request.stdout, /--key <FILE>\s+the Ed25519 private key/);
});
