/**
 * What every benchmark module hands back to `run.ts`, and the one shape `report.ts` renders:
 * a module never formats, so adding a row is writing a module, not touching the report.
 */

/**
 * Times; `re-runs`: a count of live re-runs (per write, per burst); `bytes` and `MiB` of heap;
 * `per s`: a rate.
 */
export type Unit = "ns" | "µs" | "ms" | "re-runs" | "bytes" | "MiB" | "per s";

/** One measured quantity: a median and its spread over the samples. */
export interface Figure {
  label: string;
  unit: Unit;
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
  samples: number;
  /**
   * The median of each round (or repetition), when the figure was measured in rounds alongside
   * the figures it is compared with: see `ratio`.
   */
  rounds?: number[];
}

export interface Target {
  op: ">=" | "<=" | "<";
  value: number;
}

/** A ratio (`x`) or an absolute figure held against a target, or shown for context without one. */
export interface Comparison {
  label: string;
  value: number;
  unit: "x" | Unit;
  target?: Target;
}

export interface Section {
  /** The row of issue 5 this answers, e.g. "parse an expanded URI into typed variables". */
  title: string;
  /** How it was measured, one sentence a line: enough to reproduce or doubt the figures. */
  method: string[];
  figures: Figure[];
  comparisons: Comparison[];
  /** What a missed target comes from, or anything else a reader needs to weigh the numbers. */
  notes?: string[];
}

export interface BenchContext {
  /**
   * Runs `measure` once per key for the whole `npm run bench`, so modules can share a costly
   * figure (the watch row reuses the codegen row's cold run) without depending on their order.
   */
  once<T>(key: string, measure: () => Promise<T>): Promise<T>;
  log(text: string): void;
}

export interface BenchModule {
  run(context: BenchContext): Promise<Section>;
}

export function passes(comparison: Comparison): boolean | undefined {
  const { target, value } = comparison;
  if (!target) return undefined;
  if (target.op === ">=") return value >= target.value;
  if (target.op === "<=") return value <= target.value;
  return value < target.value;
}

/** Median, quartiles and range of raw samples, all in `unit`; `rounds` as `Figure.rounds`. */
export function figureOf(
  label: string,
  unit: Unit,
  samples: readonly number[],
  rounds?: number[],
): Figure {
  if (samples.length === 0) throw new Error(`no samples for ${label}`);
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    label,
    unit,
    median: quantile(sorted, 0.5),
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    samples: sorted.length,
    ...(rounds && { rounds }),
  };
}

export function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** The nearest-rank percentile `q` (0.99 for p99) of raw samples. */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** Linear interpolation between closest ranks, as tinybench computes its percentiles. */
function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/**
 * How many times slower `slow` is than `fast`. Figures measured in the same rounds are compared
 * round by round, and the median of those ratios taken: on a machine shared with other work, a
 * busy spell slows a whole round, and comparing pooled medians could set one contender's busy
 * rounds against another's quiet ones.
 */
export function ratio(label: string, slow: Figure, fast: Figure, target?: Target): Comparison {
  if (slow.unit !== fast.unit) throw new Error(`${label}: ${slow.unit} against ${fast.unit}`);
  const paired = slow.rounds && fast.rounds && slow.rounds.length === fast.rounds.length;
  const value = paired
    ? median(slow.rounds!.map((value, i) => value / fast.rounds![i]!))
    : slow.median / fast.median;
  return { label, value, unit: "x", target };
}
