// Printing for the CLI: a plain table for people, JSON with --json for scripts.

export function printTable(rows: Record<string, string>[], columns: string[], out: (line: string) => void = console.log): void {
  if (rows.length === 0) {
    out('(none)');
    return;
  }
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  out(line(columns.map((c) => c.toUpperCase())));
  for (const row of rows) out(line(columns.map((c) => row[c] ?? '')));
}

export function printJson(value: unknown, out: (line: string) => void = console.log): void {
  out(JSON.stringify(value, null, 2));
}
