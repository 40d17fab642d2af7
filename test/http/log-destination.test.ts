// The process's log destination writes the lines of one event-loop turn together, in order, when
// the turn ends, in writes of whole lines a pipe keeps in one piece; a turn holding too much writes
// at once; and a process that exits (after an uncaught error too) writes what it held before it goes.
import { spawnSync } from 'node:child_process';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import t from 'tap';
import { ATOMIC_WRITE_BYTES, turnBufferedDestination } from '../../gateway/http/log-destination.js';
import { holdsAsync } from '../helpers/property.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

function recorded() {
  const writes: string[] = [];
  return { writes, destination: turnBufferedDestination({ write: (text: string) => void writes.push(text) }) };
}

t.test("one turn's lines leave in one write when the turn ends", async (t) => {
  const { writes, destination } = recorded();
  destination.write('{"a":1}\n');
  destination.write('{"b":2}\n');
  t.same(writes, [], 'held during the turn');
  await nextTurn();
  t.same(writes, ['{"a":1}\n{"b":2}\n']);
  destination.write('{"c":3}\n');
  destination.flush();
  t.same(writes, ['{"a":1}\n{"b":2}\n', '{"c":3}\n'], 'flush writes what is held now');
  await nextTurn();
  t.equal(writes.length, 2, 'and nothing twice');
});

t.test('a turn holding 64 Ki characters writes at once, 4 KiB of whole lines a write', async (t) => {
  const { writes, destination } = recorded();
  const line = `${'x'.repeat(1023)}\n`;
  for (let i = 0; i < 63; i++) destination.write(line);
  t.same(writes, [], 'held below 64 Ki');
  destination.write(line);
  t.equal(writes.length, 16, 'the 64th line of 1 Ki made the writes');
  t.ok(
    writes.every((text) => text === line.repeat(4)),
    'four whole lines (4 KiB) each',
  );
  const long = `${'é'.repeat(3000)}\n`;
  destination.write('{"before":true}\n');
  destination.write(long);
  destination.write('{"after":true}\n');
  await nextTurn();
  t.same(writes.slice(16), ['{"before":true}\n', long, '{"after":true}\n'], 'a line past 4 KiB (counted in bytes) goes alone');
});

t.test('every line arrives once, in order, in whole lines a pipe keeps in one piece, whatever the turns and sizes', async (t) => {
  const turns = fc.array(
    fc.array(
      fc.string({ unit: 'grapheme', maxLength: 2000 }).map((text) => `${text.replaceAll('\n', ' ')}\n`),
      { maxLength: 40 },
    ),
    { maxLength: 8 },
  );
  await holdsAsync(
    t,
    fc.asyncProperty(turns, async (lines) => {
      const { writes, destination } = recorded();
      for (const turn of lines) {
        for (const line of turn) destination.write(line);
        await nextTurn();
      }
      const wholeLines = writes.every((text) => text.endsWith('\n'));
      const atomic = writes.every((text) => Buffer.byteLength(text) <= ATOMIC_WRITE_BYTES || text.indexOf('\n') === text.length - 1);
      return writes.join('') === lines.flat().join('') && wholeLines && atomic;
    }),
    60,
  );
});

t.test('what a process held is written before it exits, also after an uncaught error', async (t) => {
  const module = pathToFileURL(`${REPO_ROOT}dist/gateway/http/log-destination.js`).href;
  for (const [how, end, status] of [
    ['process.exit', 'process.exit(3);', 3],
    ['an uncaught error', "throw new Error('boom');", 1],
  ] as const) {
    const program = `import { turnBufferedDestination } from '${module}'; const log = turnBufferedDestination(); log.write('first\\n'); log.write('last\\n'); ${end}`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 20_000 });
    t.equal(child.status, status, how);
    t.equal(child.stdout, 'first\nlast\n', `${how}: both lines written`);
  }
});
