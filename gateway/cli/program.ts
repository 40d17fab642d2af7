// gatewayctl's parser, built with commander from the command list (command.ts): --help and -h on
// every command, and every way a run can end turned into an exit code: 0, 1 when a correct command
// failed, 2 when the command line is wrong. Expected errors print one line, never a stack trace.
import { Command as Parser, CommanderError, Option } from 'commander';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from './cli-error.js';
import { GROUPS, SUBGROUPS, type Command, type OptionSpec, type OptionValues } from './command.js';
import type { CliContext } from './context.js';

/** One run of the parser: the exit code its command returned, and whether commander printed help to stderr. */
interface RunState {
  code: number;
  helpOnStderr: boolean;
}

/** A parse error, with the command whose --help would have helped. */
class ParseFailure extends Error {
  constructor(
    readonly error: CommanderError,
    readonly commandPath: string,
    readonly subcommands: string[],
  ) {
    super(error.message);
  }
}

export function commandPath(command: Command): string {
  return command.group === null ? command.name : `${command.group} ${command.name}`;
}

function toOption(name: string, spec: OptionSpec): Option {
  const flags = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'string' ? ` <${spec.value ?? 'VALUE'}>` : ''}`;
  const option = new Option(flags, spec.required ? `${spec.description} (required)` : spec.description);
  if (spec.multiple) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  if (spec.required) option.makeOptionMandatory();
  return option;
}

/** Settings each level of the parser needs (commander copies only some of them to subcommands). */
function configure(parser: Parser, path: string, context: CliContext, run: RunState): Parser {
  return parser
    .helpOption('-h, --help', 'show this help')
    .configureOutput({
      writeOut: context.out,
      // report() prints the errors, so commander writes to stderr only help it shows as a failure.
      writeErr: (text) => {
        run.helpOnStderr = true;
        context.err(text);
      },
      outputError: () => undefined,
      getOutHelpWidth: () => context.columns?.out ?? 80,
      getErrHelpWidth: () => context.columns?.err ?? 80,
      // No help text is styled: there is nothing to colour, whatever the terminal or NO_COLOR.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showSuggestionAfterError(true)
    .exitOverride((error) => {
      throw new ParseFailure(
        error,
        path,
        parser.commands.map((c) => c.name()),
      );
    });
}

/** Every command's synopsis and summary, for the top-level help. */
function everyCommand(commands: Command[]): string {
  return ['Every command (run one with --help for its options):', ...commands.map((c) => `  ${c.usage}\n      ${c.summary}`)].join('\n');
}

function addCommand(parent: Parser, command: Command, context: CliContext, run: RunState): void {
  const path = commandPath(command);
  const sub = configure(parent.command(command.name), path, context, run).description(command.summary);
  // The synopsis is written by hand (it shows which options belong together); commander prefixes the command path.
  const prefix = `gatewayctl ${path}`;
  if (command.usage.startsWith(`${prefix} `)) sub.usage(command.usage.slice(prefix.length + 1));
  for (const argument of command.arguments ?? []) sub.argument(argument.optional ? `[${argument.name}]` : `<${argument.name}>`, argument.description);
  const options = Object.entries(command.options).map(([name, spec]) => [name, toOption(name, spec)] as const);
  for (const [, option] of options) sub.addOption(option);
  if (command.details) sub.addHelpText('after', `\n${command.details}`);
  sub.action(async () => {
    const parsed = sub.opts();
    const values: OptionValues = Object.fromEntries(options.map(([name, option]) => [name, parsed[option.attributeName()]]));
    run.code = (await command.run(values, sub.args, context)) ?? 0;
  });
}

export function buildParser(commands: Command[], context: CliContext, run: RunState): Parser {
  const program = configure(new Parser('gatewayctl'), '', context, run)
    .description('Manage the gateway’s credentials through its admin API, and sign banking API requests.')
    .helpCommand('help [command]', 'show the help of a command')
    .addHelpText('after', `\n${everyCommand(commands)}\n\nAdmin options: --admin-url (GATEWAY_ADMIN_URL), --admin-token (GATEWAY_ADMIN_TOKEN).`);
  const groups = new Map<string, Parser>();
  for (const command of commands) {
    let parent = program;
    if (command.group !== null) {
      // A group may sit inside another ("service-accounts keys"): one parser per level.
      let path = '';
      for (const name of command.group.split(' ')) {
        path = path === '' ? name : `${path} ${name}`;
        const existing = groups.get(path);
        parent =
          existing ??
          configure(parent.command(name), path, context, run)
            .description(GROUPS[path] ?? SUBGROUPS[path] ?? '')
            .helpCommand(false);
        groups.set(path, parent);
      }
    }
    addCommand(parent, command, context, run);
  }
  return program;
}

/** "error: unknown option '--x'\n(Did you mean --y?)" -> "Unknown option '--x' (Did you mean --y?)". */
function parseMessage(message: string): string {
  const text = message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function report(error: unknown, context: CliContext, run: RunState): number {
  if (error instanceof ParseFailure) {
    // Help is told apart from a group named without its command by where commander printed it, not
    // by its exit code: commander starts that from process.exitCode, which belongs to whoever runs
    // the CLI (a test process, say).
    const { code, exitCode } = error.error;
    if (run.helpOnStderr) {
      context.err(`\ngatewayctl: ${error.commandPath} needs one of its commands: ${error.subcommands.join(', ')}.\n`);
      return EXIT_USAGE;
    }
    if (exitCode === 0 || code === 'commander.help') return 0; // --help, or the help command
    context.err(`gatewayctl: ${parseMessage(error.message)} (see 'gatewayctl ${error.commandPath ? `${error.commandPath} ` : ''}--help')\n`);
    return EXIT_USAGE;
  }
  if (error instanceof CliError) {
    context.err(`gatewayctl: ${error.message}\n`);
    return error.exitCode;
  }
  // A bug, not a mistake of the person: still one line, with the stack only on request.
  const detail = context.env.GATEWAYCTL_DEBUG ? `\n${(error as Error).stack ?? ''}` : ' (set GATEWAYCTL_DEBUG=1 to see where)';
  context.err(`gatewayctl: unexpected error: ${(error as Error).message ?? String(error)}${detail}\n`);
  return EXIT_FAILURE;
}

/** Runs one command line; resolves to the exit code. */
export async function runCli(args: string[], commands: Command[], context: CliContext): Promise<number> {
  const run: RunState = { code: 0, helpOnStderr: false };
  const program = buildParser(commands, context, run);
  if (args.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return run.code;
  } catch (error) {
    return report(error, context, run);
  }
}
