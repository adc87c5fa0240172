import type { Msg, Subscription } from "@nats-io/transport-node";
import { keepServing } from "../../../problems/keepServing.ts";
import { ANY_TABLE } from "../../anyTable.ts";
import type { ChangeInterest, InterestMark, WatchedReads } from "../../changeInterest.ts";
import { anyRowsOf, type TableChange } from "../../keyedAccess.ts";
import { ANNOUNCE } from "../changes/changeFeed.ts";
import { caughtUpMarker, isCaughtUpMarker } from "../changes/caughtUpMarker.ts";
import { changeOfPayload } from "../changes/changePayload.ts";
import type { PgPool } from "../pgLibrary.ts";
import { ensuredStream, type BusConnection } from "./busConnection.ts";
import type { Beat, LoggedChanges, RoutedChange } from "./busMessages.ts";

/** How long a route nobody reads is kept: a re-run that reads the same rows again keeps its routes. */
const GRACE_MS = 30_000;

/** A route taken, how many watched reads need it, and when it was taken (`#taken` then). */
interface Taken {
  readonly subscription: Subscription;
  readonly table: string;
  readonly number: number;
  readers: number;
  idleSince?: number;
}

/**
 * A process's ear on the bus: it listens only on the routes of what its watches read (reference
 * counted, let go after a grace), on `all` and on the relay's heartbeat, and tells `changed` of
 * each change heard. A gap (the connection to the bus lost, or the stream made again) is made
 * good by replaying the stream from the last position heard, or, when the stream no longer holds
 * it, by re-running every watch.
 */
export class BusListener implements ChangeInterest {
  readonly #taken = new Map<string, Taken>();
  /** How many routes have been taken (each numbered by it). */
  #routes = 0;
  /** The stream heard from: its creation time (`ensuredStream`). */
  #epoch: string | undefined;
  /** The last position the relay is known to have routed (its beat, or a change heard). */
  #position = 0;
  /** Where this process started: a fence marked before it did replays from here. */
  #startedAt = 0;
  /** Indexes heard of the last position's changes: a change on two routes is told once. */
  #lastIndexes = new Set<number>();
  #lastHeard = 0;
  /** The position before a lost connection, replayed from once it is back. */
  #lostAt: number | undefined;
  #markers = 0;
  readonly #waiting = new Map<string, () => void>();
  readonly #hear: (msg: Msg) => void;
  #sweep: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly bus: BusConnection,
    private readonly pool: () => PgPool,
    private readonly changed: (changes: readonly TableChange[]) => void,
    private readonly log: (line: string) => void,
  ) {
    this.#hear = keepServing("handling a change heard on the bus", (msg: Msg) => this.#heard(msg), log);
  }

  async start(): Promise<void> {
    const { subjects, nats } = this.bus;
    // Before the first statement of any run: what changes before it subscribes, nobody watches.
    const stream = await ensuredStream(this.bus);
    this.#epoch = stream.created;
    this.#position = this.#startedAt = stream.state.last_seq;
    const beat = keepServing("handling the bus's heartbeat", (msg: Msg) => this.#beat(msg.json<Beat>()), this.log);
    nats.subscribe(subjects.all, { callback: (_, msg) => this.#hear(msg) });
    nats.subscribe(subjects.beat, { callback: (_, msg) => beat(msg) });
    await nats.flush();
    void this.#watchConnection();
    this.#sweep = setInterval(() => this.#letGo(), GRACE_MS / 3);
    this.#sweep.unref();
  }

  /** Whether the bus connection is up now (a readiness check asks). */
  get listening(): boolean {
    return !this.bus.nats.isClosed() && this.#lostAt === undefined;
  }

  mark(): InterestMark {
    return { position: this.#epoch === undefined ? undefined : this.#position, routes: this.#routes };
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
        callback: (_, msg) => this.#hear(msg),
      });
      this.#taken.set(subject, { subscription, table, number: (this.#routes += 1), readers: 1 });
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

  async fence(mark: InterestMark | undefined): Promise<void> {
    const since = mark?.routes ?? 0;
    const tables = new Set<string>();
    for (const taken of this.#taken.values()) if (taken.number > since) tables.add(taken.table);
    if (tables.size === 0) return;
    await this.bus.nats.flush();
    await this.#replay(mark?.position ?? this.#startedAt, tables);
  }

  /**
   * Resolves once every change committed before the call has been heard: a marker announced now
   * comes through the relay after all of them. Resolves too when the connection is lost (the
   * replay after it tells what was missed).
   */
  async caughtUp(): Promise<void> {
    if (!this.listening) return;
    const marker = caughtUpMarker((this.#markers += 1));
    const arrived = new Promise<void>((resolve) => this.#waiting.set(marker, resolve));
    await this.pool().query({ text: `SELECT ${ANNOUNCE}($1)`, values: [marker] });
    await arrived;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    this.#stopWaiting();
  }

  #heard(msg: Msg): void {
    const { e, s, i, p } = msg.json<RoutedChange>();
    if (isCaughtUpMarker(p)) {
      this.#waiting.get(p)?.();
      this.#waiting.delete(p);
      return;
    }
    if (e !== this.#epoch) return this.#newStream(e, s);
    if (s === this.#lastHeard && this.#lastIndexes.has(i)) return;
    if (s !== this.#lastHeard) this.#lastIndexes.clear();
    this.#lastHeard = s;
    this.#lastIndexes.add(i);
    this.#position = Math.max(this.#position, s);
    this.changed([changeOfPayload(p)]);
  }

  #beat({ e, s }: Beat): void {
    if (e !== this.#epoch) return this.#newStream(e, s);
    this.#position = Math.max(this.#position, s);
  }

  /** The stream was made again (its positions start over): what came before is not in it. */
  #newStream(epoch: string, position: number): void {
    this.#epoch = epoch;
    this.#position = position;
    this.log("livecmd: the bus's stream of changes was made again; re-running every subscription once");
    this.changed([anyRowsOf(ANY_TABLE)]);
  }

  async #watchConnection(): Promise<void> {
    for await (const status of this.bus.nats.status()) {
      if (this.#closed) return;
      if (status.type === "disconnect") {
        this.#lostAt ??= this.#position;
        this.#stopWaiting();
        this.log(`livecmd: the connection to the bus at ${this.bus.where} was lost; reconnecting`);
      } else if (status.type === "reconnect" && this.#lostAt !== undefined) {
        const from = this.#lostAt;
        this.#lostAt = undefined;
        this.log("livecmd: the bus is back; replaying what was missed");
        await this.#replay(from, undefined).catch((error: Error) => this.#lostAll(error));
      }
    }
  }

  /**
   * Tells the changes the stream holds after `from` to the tables of `tables` (every table
   * routed to this process when absent), up to its end now; every watch re-run when it no
   * longer holds them all.
   */
  async #replay(from: number, tables: ReadonlySet<string> | undefined): Promise<void> {
    const stream = await ensuredStream(this.bus);
    const { first_seq: first, last_seq: last } = stream.state;
    if (stream.created !== this.#epoch || first > from + 1) {
      this.#epoch = stream.created;
      this.#position = Math.max(this.#position, last);
      return this.#lostAll(undefined);
    }
    if (last <= from) return;
    const routed = tables ?? new Set([...this.#taken.values()].map(({ table }) => table));
    const consumer = await this.bus.jetstream.consumers.get(this.bus.subjects.stream, {
      opt_start_seq: from + 1,
      deliver_policy: this.bus.library.jetstream.DeliverPolicy.StartSequence,
    });
    const messages = await consumer.consume();
    for await (const message of messages) {
      const changes = message
        .json<LoggedChanges>()
        .p.filter((payload) => !isCaughtUpMarker(payload))
        .map(changeOfPayload)
        .filter(({ table }) => table === ANY_TABLE || routed.has(table) || routed.has(ANY_TABLE));
      if (changes.length > 0) this.changed(changes);
      if (message.seq >= last) break;
    }
    await messages.close();
    this.#position = Math.max(this.#position, last);
  }

  #lostAll(error: Error | undefined): void {
    this.log(
      `livecmd: the bus's stream no longer holds every change this process missed${error ? ` (${error.message})` : ""}; re-running every subscription once`,
    );
    this.changed([anyRowsOf(ANY_TABLE)]);
  }

  /** Lets go of the routes nobody has read for the grace. */
  #letGo(): void {
    const before = Date.now() - GRACE_MS;
    for (const [subject, taken] of this.#taken)
      if (taken.idleSince !== undefined && taken.idleSince <= before) {
        taken.subscription.unsubscribe();
        this.#taken.delete(subject);
      }
  }

  #stopWaiting(): void {
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
  }
}
