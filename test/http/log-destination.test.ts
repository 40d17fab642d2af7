// The process's log destination writes the lines of one event-loop turn together, in order, when
// the turn ends; a turn holding too much writes at once; and a process that exits (after an
// uncaught error too) writes what it held before it goes.
import { spawnSync } from 'node:child_process';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import t from 'tap';
import { turnBufferedDestination } from '../../gateway/http/log-destination.js';
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

t.test('a turn holding 64 Ki characters writes at once', async (t) => {
  const { writes, destination } = recorded();
  const line = `${'x'.repeat(1023)}\n`;
  for (let i = 0; i < 64; i++) destination.write(line);
  t.equal(writes.length, 1, 'the 64th line of 1 Ki made the write');
  t.equal(writes[0]!.length, 64 * 1024);
  destination.write('{"after":true}\n');
  await nextTurn();
  t.same(writes.slice(1), ['{"after":true}\n']);
});

t.test('every line arrives once, in order, whatever the turns and sizes', async (t) => {
  const turns = fc.array(
    fc.array(
      fc.string({ maxLength: 3000 }).map((text) => `${text}\n`),
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
      const sent = lines.flat().join('');
      const busyTurns = lines.filter((turn) => turn.length > 0).length;
      return writes.join('') === sent && writes.length <= busyTurns + Math.floor(sent.length / (64 * 1024));
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
