// The bench reads wrk's --latency report: figures in every unit wrk prints, its padded columns,
// and a report that lacks a figure refused by name rather than read as zero.
import fc from 'fast-check';
import t from 'tap';
import { parseWrkOutput } from '../../bench/wrk.js';
import { holds } from '../helpers/property.js';

function report(p50: string, p99: string, extra = ''): string {
  return [
    'Running 2s test @ http://127.0.0.1:33021/v1/sales/42',
    '  1 threads and 32 connections',
    '  Latency Distribution',
    `     50%  ${p50}`,
    '     75%  369.18ms',
    '     90%  867.77ms',
    `     99%  ${p99}`,
    '  1650 requests in 2.02s, 0.85MB read',
    extra,
    'Requests/sec:    818.40',
    'pool exhausted: 0',
  ].join('\n');
}

t.test('latencies in microseconds, milliseconds and seconds, padded as wrk pads them', async (t) => {
  const result = parseWrkOutput(report('15.43ms', '1.15s '));
  t.same(result, { requests: 1650, requestsPerSecond: 818.4, p50Ms: 15.43, p99Ms: 1150, non2xx: 0, errors: 0, poolExhausted: 0 });
  t.equal(parseWrkOutput(report('812.00us', '2.00m')).p50Ms, 0.812);
  t.equal(parseWrkOutput(report('812.00us', '2.00m')).p99Ms, 120_000);
});

t.test('non-2xx responses and socket errors are counted', async (t) => {
  const result = parseWrkOutput(report('1.00ms', '2.00ms', '  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 17'));
  t.equal(result.errors, 10);
  t.equal(result.non2xx, 17);
});

t.test('a report without a figure is refused, naming it', async (t) => {
  t.throws(() => parseWrkOutput(report('1.00ms', '')), /wrk printed no 99% latency/);
  t.throws(() => parseWrkOutput(report('1.00ms', '2.00pc')), /unreadable wrk latency "2.00pc"/);
  t.throws(() => parseWrkOutput(report('1.00ms', '2.00ms').replace(/^Requests\/sec.*$/m, '')), /unreadable wrk output/);
});

t.test('any latency wrk can print reads back as its value in milliseconds, whatever the padding', async (t) => {
  const units = { us: 0.001, ms: 1, s: 1000, m: 60_000 } as const;
  holds(
    t,
    fc.property(fc.integer({ min: 0, max: 99_999 }), fc.constantFrom(...(Object.keys(units) as (keyof typeof units)[])), fc.nat(3), (hundredths, unit, pad) => {
      const text = `${(hundredths / 100).toFixed(2)}${unit}${' '.repeat(pad)}`;
      const read = parseWrkOutput(report('1.00ms', text)).p99Ms;
      return Math.abs(read - (hundredths / 100) * units[unit]) <= 1e-9 * Math.max(1, read);
    }),
    500,
  );
});
