import type pg from "pg";
import { wallClock } from "./pgWatchers.ts";

/** One committed UPDATE: the balance it set (unique to it), the row, and when it returned (wall clock, ms). */
export interface Write {
  seq: number;
  id: number;
  committedAt: number;
}

/** A notification of a row: the balance its re-run read, and when it was told (wall clock, ms). */
export interface Notified {
  id: number;
  balance: number;
  at: number;
}

/**
 * The rows the bench writes, in an order that visits each once before any again, each write
 * setting its row's balance to a number no write before it set (so that a notification names
 * the writes it reflects).
 */
export class RowWrites {
  #seq: number;
  #k = 0;

  constructor(
    /** The ids written, visited in this order, then again. */
    private readonly ids: readonly number[],
    /** Above every balance the rows held before. */
    firstSeq: number,
  ) {
    this.#seq = firstSeq;
  }

  /** Commits the next write in autocommit and records it in `writes` once it returned. */
  async write(pool: pg.Pool, writes: Write[]): Promise<void> {
    const seq = (this.#seq += 1);
    const id = this.ids[this.#k++ % this.ids.length]!;
    await pool.query("UPDATE customers SET balance = $1 WHERE id = $2", [seq, id]);
    writes.push({ seq, id, committedAt: wallClock() });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `rate` writes a second for `seconds`, each started on its schedule whether the ones before
 * it returned or not (an open loop: a slow pipeline does not slow the writers).
 */
export async function pacedWrites(
  pool: pg.Pool,
  rows: RowWrites,
  rate: number,
  seconds: number,
): Promise<Write[]> {
  const writes: Write[] = [];
  const pending: Promise<void>[] = [];
  const started = performance.now();
  for (let k = 0; k < rate * seconds; k++) {
    const wait = started + (k * 1000) / rate - performance.now();
    if (wait >= 1) await sleep(wait);
    pending.push(rows.write(pool, writes));
  }
  await Promise.all(pending);
  return writes;
}

/** `writers` connections each writing one row after another, as fast as they commit, for `seconds`. */
export async function saturatingWrites(
  pool: pg.Pool,
  rows: RowWrites,
  writers: number,
  seconds: number,
): Promise<Write[]> {
  const writes: Write[] = [];
  const until = performance.now() + seconds * 1000;
  const writer = async () => {
    while (performance.now() < until) await rows.write(pool, writes);
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return writes;
}

/**
 * Whether every write has been notified: for each row written, a notification of a balance at
 * least its last write's (a row's writes are far enough apart to commit in order, so that
 * notification reflects every write to it before).
 */
export function allNotified(writes: readonly Write[], notified: readonly Notified[]): boolean {
  const last = new Map<number, number>();
  for (const { id, seq } of writes) last.set(id, Math.max(last.get(id) ?? 0, seq));
  const seen = new Map<number, number>();
  for (const { id, balance } of notified) seen.set(id, Math.max(seen.get(id) ?? 0, balance));
  for (const [id, seq] of last) if ((seen.get(id) ?? 0) < seq) return false;
  return true;
}

/**
 * Each write's commit → notification time, ms: from its return to the first notification of
 * its row that reflects it (its balance or a later write's, when re-runs coalesced them); the
 * writes no notification reflected are counted as `missed`.
 */
export function notificationTimes(
  writes: readonly Write[],
  notified: readonly Notified[],
): { samples: number[]; missed: number; lastAt: number } {
  const byRow = new Map<number, Notified[]>();
  for (const told of notified) {
    const row = byRow.get(told.id) ?? [];
    row.push(told);
    byRow.set(told.id, row);
  }
  for (const row of byRow.values()) row.sort((a, b) => a.at - b.at);
  const samples: number[] = [];
  let missed = 0;
  let lastAt = 0;
  for (const { id, seq, committedAt } of writes) {
    const told = byRow.get(id)?.find(({ balance }) => balance >= seq);
    if (!told) {
      missed += 1;
      continue;
    }
    samples.push(told.at - committedAt);
    lastAt = Math.max(lastAt, told.at);
  }
  return { samples, missed, lastAt };
}
