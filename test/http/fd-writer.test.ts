// Standard output's writer writes every text whole and in order, whatever mix of full-pipe
// refusals (EAGAIN) and partial writes it meets, sleeping 1 then 2 ms between tries (not
// sonic-boom's 100 ms with the event loop stopped); other errors are thrown. Through a real pipe
// whose reader pauses, everything arrives.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import t from 'tap';
import { fdWriter } from '../../gateway/http/fd-writer.js';
import { holds } from '../helpers/property.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** Outcomes of successive write calls: a full pipe, or at most this many bytes taken. */
const outcome = fc.oneof(fc.constant('EAGAIN' as const), fc.integer({ min: 1, max: 5000 }));

t.test('every text arrives whole and in order through refusals and partial writes, with sleeps of 1 or 2 ms', (t) => {
  holds(
    t,
    fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 3000 }), { maxLength: 12 }), fc.array(outcome, { maxLength: 40 }), (texts, outcomes) => {
      const received: Buffer[] = [];
      const sleeps: number[] = [];
      let call = 0;
      const writer = fdWriter(7, {
        writeSync: (fd, buffer, offset) => {
          if (fd !== 7) throw new Error(`wrote to ${fd}`);
          // Past the scripted outcomes the pipe takes everything.
          const next = outcomes[call++] ?? Number.MAX_SAFE_INTEGER;
          if (next === 'EAGAIN') throw errno('EAGAIN');
          const taken = buffer.subarray(offset, offset + next);
          received.push(Buffer.from(taken));
          return taken.length;
        },
        sleep: (ms) => void sleeps.push(ms),
      });
      for (const text of texts) writer.write(text);
      const refusals = outcomes.slice(0, call).filter((o) => o === 'EAGAIN').length;
      return Buffer.concat(received).toString('utf8') === texts.join('') && sleeps.length === refusals && sleeps.every((ms) => ms === 1 || ms === 2);
    }),
    300,
  );
  t.end();
});

t.test('a sleep starts again at 1 ms once a write goes through', (t) => {
  const sleeps: number[] = [];
  const outcomes: ('EAGAIN' | number)[] = ['EAGAIN', 'EAGAIN', 'EAGAIN', 3, 'EAGAIN'];
  const writer = fdWriter(1, {
    writeSync: (_fd, buffer, offset) => {
      const next = outcomes.shift() ?? buffer.length - offset;
      if (next === 'EAGAIN') throw errno('EAGAIN');
      return Math.min(next, buffer.length - offset);
    },
    sleep: (ms) => void sleeps.push(ms),
  });
  writer.write('abcdef');
  t.same(sleeps, [1, 2, 2, 1]);
  t.end();
});

t.test('an error other than a full pipe is thrown, not waited on', (t) => {
  const writer = fdWriter(1, {
    writeSync: () => {
      throw errno('EPIPE');
    },
    sleep: () => t.fail('no sleep'),
  });
  t.throws(() => writer.write('line\n'), { code: 'EPIPE' });
  t.end();
});

t.test('through a real pipe whose reader pauses, 512 KiB arrive whole and in order', async (t) => {
  const module = pathToFileURL(`${REPO_ROOT}/.tap/build/gateway/http/fd-writer.js`).href;
  const lines = 'Array.from({ length: 2048 }, (_, i) => String(i).padStart(255, "x") + "\\n")';
  // process.stdout, once touched, makes a pipe non-blocking: the writer then meets EAGAIN while the reader pauses.
  const program = `import { fdWriter } from '${module}'; void process.stdout; const w = fdWriter(1); for (const line of ${lines}) w.write(line);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.pause();
  await sleep(300);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk)).resume();
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const expected = Array.from({ length: 2048 }, (_, i) => `${String(i).padStart(255, 'x')}\n`).join('');
  t.equal(code, 0, 'the writer exited normally');
  t.ok(Buffer.concat(chunks).toString() === expected, `all ${expected.length} bytes, in order`);
});
