import type { NatsMsg } from "./natsLibrary.ts";
import { keepServing } from "../../../problems/keepServing.ts";
import { ANY_TABLE } from "../../anyTable.ts";
import type { ChangeInterest, InterestMark, WatchedReads } from "../../changeInterest.ts";
import { anyRowsOf, type TableChange } from "../../keyedAccess.ts";
import { ANNOUNCE } from "../changes/changeFeed.ts";
import { caughtUpMarker, isCaughtUpMarker } from "../changes/caughtUpMarker.ts";
import { changeOfPayload } from "../changes/changePayload.ts";
import type { PgPool } from "../pgLibrary.ts";
import { ensuredStream, type BusConnection } from "./busConnection.ts";
import type { Beat, RoutedChange } from "./busMessages.ts";
import { BusRoutes } from "./busRoutes.ts";
import { RelayHeartbeat } from "./relayHeartbeat.ts";
import { replayStream } from "./streamReplay.ts";

/**
 * A process's ear on the bus: it listens on the routes of what its watches read (`BusRoutes`),
 * on `all` and on the relay's heartbeat, and tells `changed` of each change heard. A gap (the
 * connection to the bus lost; the stream made again) is made good by replaying the stream from
 * the last position heard, or, when the stream no longer holds it, by re-running every watch.
 * A relay not heard (`RelayHeartbeat`) makes the process not ready until one is, and its
 * watches re-run then.
 */
export class BusListener implements ChangeInterest {
  readonly #routes: BusRoutes;
  readonly #hear: (msg: NatsMsg) => void;
  /** The stream heard from: its creation time (`ensuredStream`). */
  #epoch: string | undefined;
  /** The last position the relay is known to have routed (its beat, or a change heard). */
  #position = 0;
  /** Where this process started: a fence marked before it did replays from here. */
  #startedAt = 0;
  /** The last position heard, and which of its changes: one on two routes is told once. */
  #lastHeard = 0;
  readonly #lastIndexes = new Set<number>();
  /** The position before the connection was lost, replayed from once it is back. */
  #lostAt: number | undefined;
  #markers = 0;
  readonly #waiting = new Map<string, () => void>();
  #closed = false;
  readonly #heartbeat: RelayHeartbeat;

  constructor(
    private readonly bus: BusConnection,
    private readonly pool: () => PgPool,
    private readonly changed: (changes: readonly TableChange[]) => void,
    private readonly log: (line: string) => void,
  ) {
    this.#hear = keepServing(
      "handling a change heard on the bus",
      (msg: NatsMsg) => this.#heard(msg),
      log,
    );
    this.#routes = new BusRoutes(bus, this.#hear);
    this.#heartbeat = new RelayHeartbeat(bus.where, () => this.listening, log);
  }

  async start(): Promise<void> {
    const { subjects, nats } = this.bus;
    // Before the first statement of any run: a change made before it subscribes, nobody watches.
    const stream = await ensuredStream(this.bus);
    this.#epoch = stream.created;
    this.#position = this.#startedAt = stream.state.last_seq;
    const beat = keepServing(
      "handling the bus's heartbeat",
      (msg: NatsMsg) => this.#beat(msg.json<Beat>()),
      this.log,
    );
    nats.subscribe(subjects.all, { callback: (_, msg) => this.#hear(msg) });
    nats.subscribe(subjects.beat, { callback: (_, msg) => beat(msg) });
    await nats.flush();
    void this.#watchConnection();
    this.#heartbeat.start();
  }

  /** Whether the bus connection is up now. */
  get listening(): boolean {
    return !this.bus.nats.isClosed() && this.#lostAt === undefined;
  }

  /** Why changes do not reach this process now, if they do not (a readiness check asks). */
  get problem(): string | undefined {
    if (!this.listening) return `the bus at ${this.bus.where} is not reachable (reconnecting)`;
    return this.#heartbeat.problem;
  }

  mark(): InterestMark {
    const position = this.#epoch === undefined ? undefined : this.#position;
    return { position, routes: this.#routes.count };
  }

  add(reads: WatchedReads): void {
    this.#routes.add(reads);
  }

  remove(reads: WatchedReads): void {
    this.#routes.remove(reads);
  }

  async fence(mark: InterestMark | undefined): Promise<void> {
    const tables = this.#routes.tablesAfter(mark?.routes ?? 0);
    if (tables.size === 0) return;
    // Once flushed, the server has the new routes: what the relay publishes from now reaches them.
    // A fence that cannot replay counts every change to those tables, rather than fail the run.
    await this.bus.nats
      .flush()
      .then(() => this.#replay(mark?.position ?? this.#startedAt, tables))
      .catch((error: Error) => {
        this.log(`livecmd: a fence could not replay the bus's stream (${error.message})`);
        this.changed([...tables].map(anyRowsOf));
      });
  }

  /**
   * Resolves once every change committed before the call has been heard: a marker announced now
   * comes through the relay after all of them. Resolves too when the connection is lost (the
   * replay once it is back tells what was missed).
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
    this.#heartbeat.stop();
    this.#routes.close();
    this.#stopWaiting();
  }

  #heard(msg: NatsMsg): void {
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
    const silent = this.#heartbeat.heard();
    if (silent !== undefined)
      this.#rerunAll(
        `a relay is heard on the bus again, after none was for ${silent} s (what was written meanwhile may never have been routed)`,
      );
    if (e !== this.#epoch) return this.#newStream(e, s);
    this.#position = Math.max(this.#position, s);
  }

  /** The stream was made again (its positions start over): what came before is not in it. */
  #newStream(epoch: string, position: number): void {
    this.#epoch = epoch;
    this.#position = position;
    this.#rerunAll("the bus's stream of changes was made again");
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
        this.#heartbeat.reconnected();
        this.log("livecmd: the bus is back; replaying the changes missed meanwhile");
        await this.#replay(from, undefined).catch((error: Error) =>
          this.#rerunAll(`replaying the bus's stream failed (${error.message})`),
        );
      }
    }
  }

  /**
   * Tells the changes the stream holds after `from` to the tables of `tables` (of every route
   * taken when absent); every watch re-run when the stream no longer holds them.
   */
  async #replay(from: number, tables: ReadonlySet<string> | undefined): Promise<void> {
    const routed = tables ?? this.#routes.tablesAfter(0);
    const replayed = await replayStream(this.bus, from, this.#epoch, (batch) => {
      const told = batch.filter(
        ({ table }) => table === ANY_TABLE || routed.has(table) || routed.has(ANY_TABLE),
      );
      if (told.length > 0) this.changed(told);
    });
    this.#position = Math.max(this.#position, replayed.last);
    if (replayed.held) return;
    this.#epoch = replayed.epoch;
    this.#rerunAll("the bus's stream no longer holds every change this process missed");
  }

  #rerunAll(why: string): void {
    this.log(`livecmd: ${why}; re-running every subscription once`);
    this.changed([anyRowsOf(ANY_TABLE)]);
  }

  #stopWaiting(): void {
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
  }
}
