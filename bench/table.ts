// The one table the bench prints: a row per figure, ratios against its reference beside it.
import type { Figure } from './measure.js';

export interface Row {
  scenario: string;
  figure: Figure;
  /** Ratios against the reference and their targets, as text. */
  comparison?: string;
}

/** A row of its own between groups of rows. */
export type Line = Row | { section: string };

export const ratio = (value: number): string => `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;

const fixed = (digits: number) => (value: number) => value.toFixed(digits);

const COLUMNS: { title: string; cell: (f: Figure) => string }[] = [
  { title: 'req/s', cell: (f) => fixed(0)(f.requestsPerSecond) },
  { title: 'p50 ms', cell: (f) => fixed(2)(f.p50Ms) },
  { title: 'p99 ms', cell: (f) => fixed(2)(f.p99Ms) },
  { title: 'CPU µs/req', cell: (f) => fixed(1)(f.cpuUsPerRequest) },
  { title: 'RSS MB', cell: (f) => fixed(0)(f.rssBytes / 2 ** 20) },
  { title: 'non-2xx', cell: (f) => String(f.non2xx) },
  { title: 'errors', cell: (f) => String(f.errors) },
];

const SIDE_COLUMN = { title: '+Redis µs/req', cell: (f: Figure) => (f.sideCpuUsPerRequest === undefined ? '' : fixed(1)(f.sideCpuUsPerRequest)) };

export function printTable(heading: string[], lines: Line[], footnotes: string[]): void {
  const rows = lines.filter((line): line is Row => 'figure' in line);
  const columns = rows.some((r) => r.figure.sideCpuUsPerRequest !== undefined) ? [...COLUMNS, SIDE_COLUMN] : COLUMNS;
  const titles = ['scenario', ...columns.map((c) => c.title), 'compared with the reference (target)'];
  const cells = (row: Row) => [row.scenario, ...columns.map((c) => c.cell(row.figure)), row.comparison ?? ''];
  const widths = titles.map((title, i) => Math.max(title.length, ...rows.map((row) => cells(row)[i]!.length)));
  // The scenario and the comparison read left to right; the figures line up on the right.
  const format = (values: string[]) =>
    values
      .map((value, i) => (i === 0 || i === values.length - 1 ? value.padEnd(widths[i]!) : value.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(`\n${heading.join('\n')}\n`);
  console.log(format(titles));
  console.log('-'.repeat(widths.reduce((sum, w) => sum + w + 2, -2)));
  for (const line of lines) console.log('figure' in line ? format(cells(line)) : `${line.section}`);
  console.log('');
  for (const note of footnotes) console.log(note);
}
