// Free ports for the processes tests and the bench start: below the kernel's ephemeral range, within
// the worker's slice of it when the suite runner names one (PORT_SLICE), never handed out twice by one
// process while the first may still be unbound.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { freePort } from '../../bench/processes.js';

const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number];
const base = Math.max(1024, low - 12_000);

/** Sets PORT_SLICE (or removes it) for one test. */
function withSlice(t: Test, slice: string | undefined): void {
  const saved = process.env.PORT_SLICE;
  t.teardown(() => {
    if (saved === undefined) delete process.env.PORT_SLICE;
    else process.env.PORT_SLICE = saved;
  });
  if (slice === undefined) delete process.env.PORT_SLICE;
  else process.env.PORT_SLICE = slice;
}

t.test("within the worker's slice, each port once", async (t) => {
  withSlice(t, '2/5');
  const size = Math.floor((low - base) / 5);
  const ports = [];
  for (let i = 0; i < 40; i++) ports.push(await freePort());
  t.ok(
    ports.every((port) => port >= base + 2 * size && port < base + 3 * size),
    `all within ${base + 2 * size}-${base + 3 * size - 1}`,
  );
  t.equal(new Set(ports).size, ports.length, 'no port handed out twice');
});

t.test('without a slice: anywhere below the ephemeral range', async (t) => {
  withSlice(t, undefined);
  const port = await freePort();
  t.ok(port >= base && port < low, `${port} below ${low}`);
});
