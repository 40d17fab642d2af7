// The CLI's two kinds of failure, told apart by exit code: 2 when the command line itself is wrong
// (the person should fix what they typed), 1 when a correct command failed (file, network, API).

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** An expected failure: printed as one "gatewayctl: message" line, never with a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = EXIT_FAILURE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A mistake in the command line: unknown option, missing argument, wrong kind of key. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT_USAGE);
}
