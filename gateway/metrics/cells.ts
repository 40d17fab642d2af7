// The metrics every request updates, without prom-client's work per update: prom-client checks the
// labels, sorts their names and joins a hash string on each inc() or observe(), pre-bound children
// included (5.6-6.9 % of a decision's profile, 4.1 % of a token's; BENCHMARKS.md). Here a label set is
// resolved to its cell once, through one Map per label over the values (strings the gateway keeps,
// so their hashes are cached), and an update is a few additions to plain numbers. The exposition is
// still the registry's: each metric hands it the values in prom-client's own form when scraped, so
// the text of /metrics is what prom-client's Counter, Gauge and Histogram would print.
import type { Metric, Registry } from 'prom-client';

/** A metric's label names, as a tuple: `cell()` then takes exactly one value for each. */
type LabelNames = readonly string[];
type LabelValues<N extends LabelNames> = { readonly [K in keyof N]: string };

interface CellsConfig<N extends LabelNames> {
  name: string;
  help: string;
  labelNames?: N;
  registers: readonly Registry[];
}

interface ExportedValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** Label sets resolved to cells: a Map per label, the last one's values being the cells. */
abstract class CellMetric<C, N extends LabelNames> {
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly string[];
  private readonly root = new Map<string, unknown>();
  /** Cells in the order first asked for (their export order), with their labels. */
  private readonly cells: { labels: Record<string, string>; cell: C }[] = [];

  constructor(config: CellsConfig<N>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames ?? [];
    // The registry reads only name, get() and reset() of a metric; prom-client's types list its own classes.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract newCell(): C;
  /** Whether a cell is exported: once updated, as prom-client exports a label set once used. */
  protected abstract used(cell: C): boolean;
  protected abstract exported(cell: C, labels: Record<string, string>): ExportedValue[];

  /** The cell of these label values, in the order of the label names. */
  cell(...values: LabelValues<N>): C {
    return this.cellOf(values);
  }

  protected cellOf(values: readonly string[]): C {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes ${this.labelNames.length} label values, not ${values.length}`);
    let level: Map<string, unknown> = this.root;
    for (let i = 0; i < values.length - 1; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    const last = values.length === 0 ? '' : values[values.length - 1]!;
    let cell = level.get(last) as C | undefined;
    if (cell === undefined) {
      cell = this.newCell();
      level.set(last, cell);
      this.cells.push({ labels: Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]!])), cell });
    }
    return cell;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: ExportedValue[] }> {
    const values = this.cells.filter(({ cell }) => this.used(cell)).flatMap(({ labels, cell }) => this.exported(cell, labels));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** Zeroes every label set and stops exporting it until it is used again (cells kept by callers stay valid). */
  reset(): void {
    for (const { cell } of this.cells) this.clear(cell);
  }

  protected abstract clear(cell: C): void;
}

/** A counter's value: it only goes up. */
export class CounterCell {
  value = 0;
  used = false;

  inc(): void {
    this.value++;
    this.used = true;
  }
}

export class GaugeCell extends CounterCell {
  dec(): void {
    this.value--;
    this.used = true;
  }
}

/** Exported as one sample a label set, as prom-client's Counter and Gauge are. */
abstract class ValueMetric<C extends CounterCell, N extends LabelNames> extends CellMetric<C, N> {
  protected used(cell: C): boolean {
    return cell.used;
  }

  protected clear(cell: C): void {
    cell.value = 0;
    cell.used = false;
  }

  protected exported(cell: C, labels: Record<string, string>): ExportedValue[] {
    return [{ value: cell.value, labels: { ...labels } }];
  }
}

/** A counter; unlabelled, it is exported from the start, as prom-client's is. */
export class CellCounter<N extends LabelNames = readonly []> extends ValueMetric<CounterCell, N> {
  readonly type = 'counter';
  private readonly unlabelled: boolean;

  constructor(config: CellsConfig<N>) {
    super(config);
    this.unlabelled = (config.labelNames ?? []).length === 0;
    if (this.unlabelled) this.cellOf([]);
  }

  protected newCell(): CounterCell {
    return new CounterCell();
  }

  protected override used(cell: CounterCell): boolean {
    return cell.used || this.unlabelled;
  }
}

/** A gauge moved up and down by the hot path (requests in flight). */
export class CellGauge<N extends LabelNames = readonly []> extends ValueMetric<GaugeCell, N> {
  readonly type = 'gauge';

  protected newCell(): GaugeCell {
    return new GaugeCell();
  }
}

export class HistogramCell {
  /** Per bucket, not cumulative; the last is above every bound (+Inf). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** A histogram with fixed buckets (prom-client's Histogram, exported alike: cumulative buckets, le first, then _sum and _count). */
export class CellHistogram<N extends LabelNames = readonly []> extends CellMetric<HistogramCell, N> {
  readonly type = 'histogram';
  private readonly bounds: Float64Array;

  constructor(config: CellsConfig<N> & { buckets: readonly number[] }) {
    super(config);
    if (config.buckets.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= config.buckets[i - 1]!)))
      throw new Error(`${config.name}: buckets must be finite and increasing`);
    this.bounds = Float64Array.from(config.buckets);
  }

  protected newCell(): HistogramCell {
    return new HistogramCell(this.bounds);
  }

  protected used(cell: HistogramCell): boolean {
    return cell.count > 0;
  }

  protected clear(cell: HistogramCell): void {
    cell.counts.fill(0);
    cell.sum = 0;
    cell.count = 0;
  }

  protected exported(cell: HistogramCell, labels: Record<string, string>): ExportedValue[] {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    const values: ExportedValue[] = [];
    this.bounds.forEach((le, i) => {
      cumulative += cell.counts[i]!;
      values.push({ value: cumulative, labels: { le, ...labels }, metricName: bucket });
    });
    values.push(
      { value: cell.count, labels: { le: '+Inf', ...labels }, metricName: bucket },
      { value: cell.sum, labels: { ...labels }, metricName: `${this.name}_sum` },
      { value: cell.count, labels: { ...labels }, metricName: `${this.name}_count` },
    );
    return values;
  }
}
