// The cell metrics print what prom-client's own Counter, Gauge and Histogram print for the same
// updates (label values with quotes, backslashes and newlines, any finite value, resets between),
// and refuse what prom-client refuses.
import fc from 'fast-check';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import t from 'tap';
import { CellCounter, CellGauge, CellHistogram } from '../../gateway/metrics/cells.js';
import { holdsAsync } from '../helpers/property.js';

const BUCKETS = [0.0005, 0.001, 0.01, 0.5, 1, 2.5];

type Update =
  | { metric: 'counter'; route: string; outcome: string }
  | { metric: 'unlabelled' }
  | { metric: 'gauge'; listener: string; up: boolean }
  | { metric: 'histogram'; route: string; value: number }
  | { metric: 'reset' };

const labelValue = fc.constantFrom('sales', 'products', 'a"b', 'back\\slash', 'new\nline', '', 'ünï');
const value = fc.oneof(fc.constantFrom(...BUCKETS, 0, -1, 1e9), fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }));
const update: fc.Arbitrary<Update> = fc.oneof(
  fc.record({ metric: fc.constant('counter' as const), route: labelValue, outcome: labelValue }),
  fc.record({ metric: fc.constant('unlabelled' as const) }),
  fc.record({ metric: fc.constant('gauge' as const), listener: labelValue, up: fc.boolean() }),
  fc.record({ metric: fc.constant('histogram' as const), route: labelValue, value }),
  fc.record({ metric: fc.constant('reset' as const) }),
);

function promClientMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    counter: new Counter({ name: 'requests_total', help: 'Requests "by route".', labelNames: ['route', 'outcome'], registers }),
    unlabelled: new Counter({ name: 'tokens_total', help: 'Tokens.', registers }),
    gauge: new Gauge({ name: 'in_flight', help: 'In flight\\now.', labelNames: ['listener'], registers }),
    histogram: new Histogram({ name: 'duration_seconds', help: 'Duration.', labelNames: ['route'], buckets: BUCKETS, registers }),
  };
}

function cellMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    counter: new CellCounter({ name: 'requests_total', help: 'Requests "by route".', labelNames: ['route', 'outcome'], registers }),
    unlabelled: new CellCounter({ name: 'tokens_total', help: 'Tokens.', registers }),
    gauge: new CellGauge({ name: 'in_flight', help: 'In flight\\now.', labelNames: ['listener'], registers }),
    histogram: new CellHistogram({ name: 'duration_seconds', help: 'Duration.', labelNames: ['route'], buckets: BUCKETS, registers }),
  };
}

t.test("the exposition is prom-client's for the same updates", async (t) => {
  await holdsAsync(
    t,
    fc.asyncProperty(fc.array(update, { maxLength: 60 }), async (updates) => {
      const theirs = promClientMetrics();
      const ours = cellMetrics();
      // A cell kept from the start, as the gateway keeps its stages' and the token counter's.
      const kept = ours.unlabelled.cell();
      for (const u of updates) {
        if (u.metric === 'counter') {
          theirs.counter.inc({ route: u.route, outcome: u.outcome });
          ours.counter.cell(u.route, u.outcome).inc();
        } else if (u.metric === 'unlabelled') {
          theirs.unlabelled.inc();
          kept.inc();
        } else if (u.metric === 'gauge') {
          if (u.up) theirs.gauge.inc({ listener: u.listener });
          else theirs.gauge.dec({ listener: u.listener });
          if (u.up) ours.gauge.cell(u.listener).inc();
          else ours.gauge.cell(u.listener).dec();
        } else if (u.metric === 'histogram') {
          theirs.histogram.observe({ route: u.route }, u.value);
          ours.histogram.cell(u.route).observe(u.value);
        } else {
          theirs.registry.resetMetrics();
          ours.registry.resetMetrics();
        }
      }
      // After a reset prom-client prints label sets in the order of their next use, the cells in the
      // order of their first: the same samples, which is all Prometheus reads.
      const samples = (text: string) => (updates.some((u) => u.metric === 'reset') ? text.split('\n').sort().join('\n') : text);
      const [expected, actual] = [samples(await theirs.registry.metrics()), samples(await ours.registry.metrics())];
      if (expected !== actual) throw new Error(`prom-client:\n${expected}\ncells:\n${actual}`);
      return true;
    }),
    200,
  );
});

t.test('an example: cumulative buckets, le first, then the sum and the count', async (t) => {
  const { registry, histogram, counter } = cellMetrics();
  histogram.cell('sales').observe(0.0007);
  histogram.cell('sales').observe(3);
  counter.cell('sales', 'forwarded').inc();
  const text = await registry.metrics();
  t.match(text, 'duration_seconds_bucket{le="0.0005",route="sales"} 0\nduration_seconds_bucket{le="0.001",route="sales"} 1\n');
  t.match(text, 'duration_seconds_bucket{le="2.5",route="sales"} 1\nduration_seconds_bucket{le="+Inf",route="sales"} 2\n');
  t.match(text, 'duration_seconds_sum{route="sales"} 3.0007\nduration_seconds_count{route="sales"} 2\n');
  t.match(text, 'requests_total{route="sales",outcome="forwarded"} 1\n');
  t.match(text, '# TYPE tokens_total counter\ntokens_total 0\n', 'an unlabelled counter is printed before it is used, as prom-client prints it');
  t.notMatch(text, 'in_flight{', 'a label set never used is not printed');
});

t.test('refused as prom-client refuses: the wrong number of label values, a value that is not a number, buckets out of order', async (t) => {
  const { counter, histogram } = cellMetrics();
  t.throws(() => counter.cell('sales'), /requests_total takes 2 label values, not 1/);
  t.throws(() => histogram.cell('sales').observe(Number.NaN), /Value is not a valid number: NaN/);
  t.throws(() => histogram.cell('sales').observe(Number.POSITIVE_INFINITY), /Value is not a valid number: Infinity/);
  t.throws(() => new CellHistogram({ name: 'h', help: 'h', buckets: [1, 0.5], registers: [] }), /h: buckets must be finite and increasing/);
  const registry = new Registry();
  new CellCounter({ name: 'same_total', help: 'x', registers: [registry] });
  t.throws(() => new CellCounter({ name: 'same_total', help: 'x', registers: [registry] }), /same_total has already been registered/);
});
