// A request's logger is made on its first line at an enabled level: lines carry the bindings as a
// child's would, a request that writes nothing makes no child, and a child with a level of its own
// is made at once.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { lazyChildLogger, levelEnabled } from '../../gateway/http/lazy-child-logger.js';

function logger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

/** The bindings, counting how often they were asked for (once per child made). */
function counted(bindings: Record<string, string>) {
  const asked = { count: 0 };
  return { asked, bindings: () => (asked.count++, bindings) };
}

t.test('nothing is made for lines below the level; the first enabled line makes the child once', async (t) => {
  const { log, lines } = logger('warn');
  const { asked, bindings } = counted({ request_id: 'r-1', listener: 'decision' });
  const lazy = lazyChildLogger(log, bindings, {});
  lazy.info({ path: '/x' }, 'request');
  lazy.debug('detail');
  t.equal(asked.count, 0, 'no child for lines that are off');
  t.equal(lines.length, 0);
  t.equal(levelEnabled(lazy, 'info'), false);
  t.equal(levelEnabled(lazy, 'error'), true);
  t.equal(lazy.level, 'warn', "the parent's level until made");

  lazy.warn({ code: 'x' }, 'first');
  lazy.error(new Error('boom'), 'second');
  t.equal(asked.count, 1, 'made once');
  t.match(lines, [
    { level: 40, msg: 'first', code: 'x', request_id: 'r-1', listener: 'decision' },
    { level: 50, msg: 'second', request_id: 'r-1', listener: 'decision', err: { message: 'boom' } },
  ]);
});

t.test("a child of the request's logger carries both sets of bindings", async (t) => {
  const { log, lines } = logger('info');
  const lazy = lazyChildLogger(log, () => ({ request_id: 'r-2' }), {});
  lazy.child({ stage: 'admit' }).info('nested');
  t.match(lines, [{ msg: 'nested', request_id: 'r-2', stage: 'admit' }]);
});

t.test('a level set on the request logger applies to it alone', async (t) => {
  const { log, lines } = logger('warn');
  const lazy = lazyChildLogger(log, () => ({ request_id: 'r-3' }), {});
  lazy.level = 'debug';
  lazy.debug('now on');
  t.equal(log.level, 'warn', 'the parent keeps its level');
  t.match(lines, [{ level: 20, msg: 'now on', request_id: 'r-3' }]);
});

t.test('a child with a level of its own (a route logLevel) is made at once and judged by that level', async (t) => {
  const { log, lines } = logger('warn');
  const { asked, bindings } = counted({ request_id: 'r-4' });
  const child = lazyChildLogger(log, bindings, { level: 'debug' });
  t.equal(asked.count, 1);
  child.debug('shown');
  t.match(lines, [{ level: 20, msg: 'shown', request_id: 'r-4' }]);
});
