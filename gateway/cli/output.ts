// Printing for the CLI, onto the run's stdout: lines, a plain table for people, JSON with --json for scripts.
import type { CliContext } from './context.js';

type Out = Pick<CliContext, 'out'>;

/** One line, as console.log prints it. */
export function printLine(context: Out, line: string): void {
  context.out(`${line}\n`);
}

export function printTable(context: Out, rows: Record<string, string>[], columns: string[]): void {
  if (rows.length === 0) {
    printLine(context, '(none)');
    return;
  }
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  printLine(context, line(columns.map((c) => c.toUpperCase())));
  for (const row of rows) printLine(context, line(columns.map((c) => row[c] ?? '')));
}

export function printJson(context: Out, value: unknown): void {
  printLine(context, JSON.stringify(value, null, 2));
}
