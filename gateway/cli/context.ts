// What one run of gatewayctl reads and writes: its environment, stdin, stdout and stderr. main.ts
// hands in the process's own; tests run the CLI in process with theirs, so no command reaches for
// process.env or the process's streams, and a test's environment is all the CLI sees.

export interface CliStdin {
  /** A terminal: hash-password then asks for the password without echo. */
  isTTY: boolean;
  /** Read to its end by `--data-file -` and by hash-password from a pipe. */
  stream: NodeJS.ReadableStream;
}

export interface CliContext {
  /** Text for stdout. */
  out: (text: string) => void;
  /** Text for stderr. */
  err: (text: string) => void;
  /** Bytes for stdout, written as they are (request prints a response body unchanged). */
  outBytes: (bytes: Uint8Array) => void;
  /** The environment the commands read (GATEWAY_ADMIN_URL, GATEWAY_ACCESS_ID, GATEWAYCTL_DEBUG...). */
  env: NodeJS.ProcessEnv;
  /** Opened only by a command that reads it, so the others never touch the process's stdin. */
  stdin: () => CliStdin;
  /** The widths of stdout and stderr when they are terminals: help wraps to them (else to 80 columns). */
  columns?: { out?: number; err?: number };
}

/** Everything on a stream, to its end (on a terminal: until Ctrl-D). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
