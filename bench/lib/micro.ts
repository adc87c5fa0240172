import { Bench } from "tinybench";
import { figureOf, type Figure } from "./section.ts";

export interface MicroTask {
  label: string;
  /** Does `batchSize` operations and returns something derived from every result. */
  batch: () => number;
  batchSize: number;
}

/** Each round gives every task `timeMs` in turn, so a burst of load elsewhere hits them all alike. */
export const MICRO_ROUNDS = { rounds: 5, timeMs: 200, warmupMs: 100 } as const;

/**
 * A batch that runs its own copy of `loop`, compiled from its source, so that the call sites in
 * it gather type feedback for this task alone. Loops written once and reused across tasks would
 * share feedback: a call site that serves one template would look polymorphic, as it never is in
 * code that calls `uris.customers_show(...)` or one SDK `UriTemplate`'s `match`. `loop` must use
 * nothing but its arguments.
 */
export function ownCallSites<A extends unknown[]>(
  loop: (...args: A) => number,
  ...args: A
): () => number {
  const copy = new Function(`return (${loop.toString()});`)() as (...args: A) => number;
  return () => copy(...args);
}

/** Kept observable so that no task's work can be optimised away. */
let sink = 0;

/**
 * Times each task with tinybench and returns one figure per task, in nanoseconds per operation:
 * a sample is one batch (tens of microseconds, far above the timer's resolution) divided by
 * its size.
 */
export async function measureMicro(tasks: readonly MicroTask[]): Promise<Figure[]> {
  const { rounds, timeMs, warmupMs } = MICRO_ROUNDS;
  const samples = new Map<string, number[]>(tasks.map((task) => [task.label, []]));
  const roundMedians = new Map<string, number[]>(tasks.map((task) => [task.label, []]));
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({
      time: timeMs,
      warmupTime: warmupMs,
      retainSamples: true,
      throws: true,
    });
    for (const task of tasks) bench.add(task.label, () => void (sink += task.batch()));
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== "completed" || !result.latency.samples)
        throw new Error(`${task.name}: ${result.state}`);
      const size = tasks.find((candidate) => candidate.label === task.name)!.batchSize;
      const perOperation = samples.get(task.name)!;
      for (const ms of result.latency.samples) perOperation.push((ms * 1e6) / size);
      roundMedians.get(task.name)!.push((result.latency.p50 * 1e6) / size);
    }
  }
  if (Number.isNaN(sink)) throw new Error("unreachable: keeps the sink observable");
  return tasks.map((task) =>
    figureOf(task.label, "ns", samples.get(task.label)!, roundMedians.get(task.label)),
  );
}
