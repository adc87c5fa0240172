import type { NatsMsg, NatsSubscription } from "./natsLibrary.ts";
import type { WatchedReads } from "../../changeInterest.ts";
import type { BusConnection } from "./busConnection.ts";

/** How long a route nobody reads is kept: a re-run that reads the same rows again keeps its routes. */
const GRACE_MS = 30_000;

/** A route taken, how many watched reads need it, and its number (`#taken` then). */
interface Taken {
  readonly subscription: NatsSubscription;
  readonly table: string;
  readonly number: number;
  readers: number;
  idleSince?: number;
}

/**
 * The routes a process listens on for what its watches read (`BusSubjects.interestOf`), each
 * subscribed once however many reads need it, and let go once none has for `GRACE_MS`.
 */
export class BusRoutes {
  readonly #taken = new Map<string, Taken>();
  /** How many routes have been taken (each is numbered by it). */
  #count = 0;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    private readonly bus: BusConnection,
    private readonly heard: (msg: NatsMsg) => void,
  ) {
    this.#sweep = setInterval(() => this.#letGo(), GRACE_MS / 3);
    this.#sweep.unref();
  }

  get count(): number {
    return this.#count;
  }

  add(reads: WatchedReads): void {
    for (const { subject, table } of this.bus.subjects.interestOf(reads)) {
      const taken = this.#taken.get(subject);
      if (taken) {
        taken.readers += 1;
        taken.idleSince = undefined;
        continue;
      }
      const subscription = this.bus.nats.subscribe(subject, {
        callback: (_, msg) => this.heard(msg),
      });
      this.#taken.set(subject, { subscription, table, number: (this.#count += 1), readers: 1 });
    }
  }

  remove(reads: WatchedReads): void {
    for (const { subject } of this.bus.subjects.interestOf(reads)) {
      const taken = this.#taken.get(subject);
      if (!taken || taken.readers === 0) continue;
      taken.readers -= 1;
      if (taken.readers === 0) taken.idleSince = Date.now();
    }
  }

  /** The tables of the routes taken after the `count`th (all of them from 0). */
  tablesAfter(count: number): Set<string> {
    const tables = new Set<string>();
    for (const taken of this.#taken.values()) if (taken.number > count) tables.add(taken.table);
    return tables;
  }

  close(): void {
    clearInterval(this.#sweep);
  }

  #letGo(): void {
    const before = Date.now() - GRACE_MS;
    for (const [subject, taken] of this.#taken)
      if (taken.idleSince !== undefined && taken.idleSince <= before) {
        taken.subscription.unsubscribe();
        this.#taken.delete(subject);
      }
  }
}
