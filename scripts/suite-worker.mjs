// One worker of scripts/run-suite.mjs: a long-lived process that asks the runner for a compiled test
// file, imports it, and asks for the next one only once that file's tests have finished. Every
// file's top-level t.test() calls land on tap's one root test, which runs them in the order they
// were queued; the "finished" subtest queued after a file's tests is what runs when they are done,
// so files never overlap. Its report (the file's root tests, failed ones, and the time) goes to the
// runner over the IPC channel; the TAP stream goes to stdout as usual.
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';

/**
 * The runner's next file, or undefined when the queue is empty. tap (and the test helpers) unref the
 * IPC channel so that it never keeps a test process alive: while the answer is awaited, it must.
 */
function nextFile() {
  return new Promise((resolve) => {
    process.channel.ref();
    process.once('message', (message) => {
      process.channel.unref();
      resolve(message.file);
    });
    process.send({ ready: true });
  });
}

/** tap's root counts when the previous file's "finished" subtest started (that subtest is counted after it). */
let previous = { total: 0, fail: 0, first: true };

async function runNext() {
  const file = await nextFile();
  if (file === undefined) {
    process.disconnect();
    return;
  }
  const name = relative(process.cwd(), file);
  const started = performance.now();
  await import(pathToFileURL(file).href);
  t.test(`${name} finished`, async () => {
    // What ended since the previous file's "finished" subtest began: this file's root tests (and that
    // subtest itself). A failure that surfaces late, from a timer a file left behind, lands here too.
    const { total, fail } = t.counts;
    process.send({
      finished: file,
      tests: Math.max(0, total - previous.total - (previous.first ? 0 : 1)),
      failed: fail - previous.fail,
      ms: Math.round(performance.now() - started),
    });
    previous = { total, fail, first: false };
    await runNext();
  });
}

await runNext();
