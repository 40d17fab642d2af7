// A request's logger: a request that writes no line makes no child; its first line, a child of it or
// a level set on it makes the child, once; a child with options of its own is made at once.
import { Writable } from 'node:stream';
import { pino, type LoggerOptions } from 'pino';
import t from 'tap';
import { lazyChildLogger, levelEnabled } from '../../gateway/http/lazy-child-logger.js';
import { loggerOptions } from '../../gateway/http/logging.js';

function logger(level: string) {
  // The gateway's own logger options: its redaction among them.
  const options = { ...(loggerOptions(level, 'pino') as LoggerOptions) };
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino(options, stream), lines };
}

/** The bindings, counting how often they were asked for (once per child made). */
function counted(bindings: Record<string, string>) {
  const asked = { count: 0 };
  return { asked, bindings: () => (asked.count++, bindings) };
}

t.test('nothing is made for lines below the level; the bindings are made once for every line after', async (t) => {
  const { log, lines } = logger('warn');
  const { asked, bindings } = counted({ request_id: 'r-1', listener: 'decision' });
  const lazy = lazyChildLogger(log, bindings, {});
  lazy.info({ path: '/x' }, 'request');
  lazy.debug('detail');
  t.equal(asked.count, 0, 'no bindings for lines that are off');
  t.equal(lines.length, 0);
  t.equal(levelEnabled(lazy, 'info'), false);
  t.equal(levelEnabled(lazy, 'error'), true);
  t.equal(lazy.level, 'warn', "the parent's level until made");

  lazy.warn({ code: 'x' }, 'first');
  lazy.error(new Error('boom'), 'second');
  t.equal(asked.count, 1, 'asked once: the first line makes the child, the second is written by it too');
  t.match(lines, [
    { level: 40, msg: 'first', code: 'x', request_id: 'r-1', listener: 'decision' },
    { level: 50, msg: 'second', request_id: 'r-1', listener: 'decision', err: { message: 'boom' } },
  ]);
});

t.test('a line is written as the child made for it writes it: the same fields in the same order, credentials redacted alike', async (t) => {
  const lazyOut = logger('info');
  const childOut = logger('info');
  const bindings = { request_id: 'r-5', listener: 'decision', trace_id: 'a'.repeat(32) };
  let made = 0;
  const parent = lazyOut.log;
  const countingParent = Object.assign(Object.create(parent) as typeof parent, {
    child: (...args: Parameters<typeof parent.child>) => (made++, parent.child(...args)),
  });
  const lazy = lazyChildLogger(countingParent, () => bindings, {});
  const fields = { method: 'GET', path: '/v1/sales', status: 200, duration_ms: 1.5, outcome: 'ok', headers: { authorization: 'Bearer secret' } };
  lazy.info(structuredClone(fields), 'request');
  childOut.log.child(bindings).info(structuredClone(fields), 'request');
  const withoutTime = (line: Record<string, unknown>) => JSON.stringify({ ...line, time: 0, pid: 0 });
  t.equal(withoutTime(lazyOut.lines[0]!), withoutTime(childOut.lines[0]!));
  t.match(lazyOut.lines[0], { headers: { authorization: '[redacted]' } });
  lazy.warn('a message alone');
  t.equal(made, 1, 'one child for both lines');
  t.match(lazyOut.lines[1], { msg: 'a message alone', request_id: 'r-5' });
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
