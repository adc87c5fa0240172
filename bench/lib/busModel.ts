/**
 * Issue 49's deployment sized from the bus bench's measured costs: each part's load at the
 * deployment's write rate, and the write rate at which its one thread (or one core) is used up.
 */

/** What the model sizes. */
export interface Deployment {
  processes: number;
  watchedUris: number;
  writesPerSecond: number;
}

/** A cost measured at the paced rate and with writers as fast as they commit. */
export interface PacedAndSaturated {
  paced: number;
  saturated: number;
}

/** The costs the bench measured, CPU in µs. */
export interface BusCosts {
  /** The rate of the paced phases, writes/s. */
  pacedRate: number;
  /** Processes each write reached on the bus. */
  reached: number;
  /** Subjects a watched URI takes (customers_show). */
  subjectsPerUri: number;
  /** Memory a watched key takes, bytes: a process's heap, and nats-server's. */
  processBytesPerKey: number;
  brokerBytesPerKey: number;
  /** Writes a batch of the relay (one NOTIFY statement and one JetStream message each). */
  writesPerBatch: PacedAndSaturated;
  /** The relay's batches a second at the paced rate, each sent while the next gathers. */
  batchesPerSecond: number;
  /** The relay's own CPU a write, on the bus. */
  relay: PacedAndSaturated;
  /** nats-server's CPU a write. */
  broker: PacedAndSaturated;
  /** PostgreSQL's WAL sender's CPU a write (the slot's logical decoding). */
  walsender: PacedAndSaturated;
  /** A serving process's CPU a change it watches: heard, re-run, notified (paced). */
  watched: number;
  /** A process's CPU a change it hears and does not watch, on today's feed (one that watches nothing). */
  unwatched: PacedAndSaturated;
  /** A LISTEN backend's CPU a notification it delivers, on today's feed. */
  listener: PacedAndSaturated;
}

const number = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `f` of both measures of a cost. */
const each = (
  { paced, saturated }: PacedAndSaturated,
  f: (measured: number) => number,
): PacedAndSaturated => ({ paced: f(paced), saturated: f(saturated) });

/** A cost measured busy and paced, as "busy–paced". */
const range = ({ saturated, paced }: PacedAndSaturated, digits: number) =>
  `${number(saturated, digits)}–${number(paced, digits)}`;

const GIB = 2 ** 30;
const MIB = 2 ** 20;

/**
 * A part that works a batch at a time (the relay, nats-server's JetStream) costs, a write,
 * `batch / n + write` with `n` writes a batch: the two costs measured at two batch sizes give
 * `batch`, and `write` is at most the cost with the larger batches.
 */
interface Batched {
  batch: number;
  write: number;
  /** µs a second at `rate` writes/s, batches sent no more often than at the paced rate. */
  at(rate: number): number;
  /** The part's work as text: how `batch` was found. */
  text: string;
}

function batched(cost: PacedAndSaturated, costs: BusCosts): Batched {
  const n = costs.writesPerBatch;
  // A batch that costs nothing measurable (the paced cost no higher) is 0, not negative.
  const batch = Math.max(0, (cost.paced - cost.saturated) / (1 / n.paced - 1 / n.saturated));
  const write = cost.saturated;
  return {
    batch,
    write,
    at: (rate) => costs.batchesPerSecond * batch + rate * write,
    text: `a batch (${number(cost.paced, 1)} − ${number(cost.saturated, 1)}) µs / (1/${number(n.paced, 1)} − 1/${number(n.saturated, 1)}) = ${number(batch)} µs, a write at most ${number(write, 1)} µs`,
  };
}

/** The model, as lines of text with their arithmetic. */
export function busModel(costs: BusCosts, deployment: Deployment): string[] {
  const { processes, watchedUris, writesPerSecond: rate } = deployment;
  const batches = number(costs.batchesPerSecond);
  const relay = batched(costs.relay, costs);
  const broker = batched(costs.broker, costs);
  const cores = (microsecondsPerSecond: number) => microsecondsPerSecond / 1e6;
  const load = (part: Batched) =>
    `${batches} × ${number(part.batch)} µs + ${number(rate)} × ${number(part.write, 1)} µs = ${number(cores(part.at(rate)), 2)}`;
  const usedUpAt = (part: Batched) => (1e6 - costs.batchesPerSecond * part.batch) / part.write;
  const delivered = (rate * costs.reached) / processes;
  const uris = watchedUris / processes;
  const brokerGiB = (watchedUris * costs.subjectsPerUri * costs.brokerBytesPerKey) / GIB;
  const processMiB = (uris * costs.subjectsPerUri * costs.processBytesPerKey) / MIB;
  const onBus = cores(delivered * costs.watched);
  const hearing = each(costs.unwatched, (cost) => cores(rate * cost));
  const today = each(hearing, (hears) => hears + onBus);
  const overAll = each(today, (one) => one * processes);
  const listeners = each(costs.listener, (cost) => cores(processes * rate * cost));
  const limits: [string, number][] = [
    ["the relay's one thread", usedUpAt(relay)],
    ["PostgreSQL's one WAL sender", 1e6 / costs.walsender.saturated],
    ["one core of nats-server", usedUpAt(broker)],
    ["one core of a serving process", (1e6 / costs.watched) * (processes / costs.reached)],
  ];
  limits.sort((a, b) => a[1] - b[1]);
  const [first, second] = limits as [[string, number], [string, number]];
  return [
    `Model: ${processes} processes, ${number(watchedUris)} watched URIs (customers_show, ${number(costs.subjectsPerUri, 2)} subjects each), ${number(rate)} writes/s, each write to a row watched as here (${number(costs.reached, 2)} process a write on the bus). The relay sends a batch (one NOTIFY statement, one JetStream message) while the next gathers: ${number(costs.writesPerBatch.paced, 1)} writes a batch, ${batches} batches/s at ${costs.pacedRate} writes/s; ${number(costs.writesPerBatch.saturated, 1)} with writers as fast as they commit. A faster stream makes larger batches, sent no more often, so the model takes ${batches} batches/s at ${number(rate)} writes/s. The serving processes' costs are this run's at ${costs.pacedRate} writes/s.`,
    `Model, the relay (one Node process streams the slot for the whole database): ${relay.text}; at ${number(rate)} writes/s ${load(relay)} of its one thread; used up at ${number(usedUpAt(relay))} writes/s.`,
    `Model, nats-server: ${broker.text}; at ${number(rate)} writes/s ${load(broker)} cores; one core used up at ${number(usedUpAt(broker))} writes/s. Memory: ${number(watchedUris)} URIs × ${number(costs.subjectsPerUri, 2)} subjects × ${number(costs.brokerBytesPerKey)} bytes = ${number(brokerGiB, 2)} GiB.`,
    `Model, PostgreSQL's WAL sender (one process decodes the slot, bus or not): ${number(costs.walsender.saturated, 1)} µs a write when busy (${number(costs.walsender.paced, 1)} at ${costs.pacedRate} writes/s, woken for each commit); ${number(rate)} × ${number(costs.walsender.saturated, 1)} µs = ${number(cores(rate * costs.walsender.saturated), 2)} of it; used up at ${number(1e6 / costs.walsender.saturated)} writes/s.`,
    `Model, a serving process on the bus: ${number(rate)} × ${number(costs.reached, 2)} / ${processes} = ${number(delivered)} changes/s × ${number(costs.watched)} µs = ${number(onBus, 3)} cores; ${number(uris)} URIs × ${number(costs.subjectsPerUri, 2)} subjects × ${number(costs.processBytesPerKey)} bytes = ${number(processMiB)} MiB of heap for its routes.`,
    `Model, today's feed instead: each process hears every write, ${number(rate)} × ${range(costs.unwatched, 1)} µs = ${range(hearing, 2)} cores (busy – paced costs), plus its own ${number(delivered)} × ${number(costs.watched)} µs = ${number(onBus, 2)}: ${range(today, 2)} cores a process, ${range(overAll, 0)} over ${processes} processes (on the bus ${number(onBus * processes, 1)}); hearing alone uses up a process's core at ${number(1e6 / costs.unwatched.paced)}–${number(1e6 / costs.unwatched.saturated)} writes/s, whatever it watches. PostgreSQL's ${processes} LISTEN backends: ${number(processes * rate)} notifications/s × ${range(costs.listener, 1)} µs = ${range(listeners, 1)} cores of the database.`,
    `Model, what runs out first on the bus: ${first[0]} at ${number(first[1])} writes/s (${number(rate / first[1], 2)}× of it at ${number(rate)} writes/s), then ${second[0]} at ${number(second[1])} writes/s.`,
  ];
}
