import type { BusPublisher } from "../bus/busPublisher.ts";
import type { PgQueryable } from "../pgLibrary.ts";
import { CHANGES_CHANNEL } from "./changeFeed.ts";
import { SEEN_BY_ALL } from "./logicalFeed.ts";
import { MESSAGE_PREFIX, WalTransaction } from "./walChanges.ts";
import type { WalMessage, WalStream, WalTuple } from "./walMessage.ts";
import { WalRelations } from "./walRelations.ts";

/** Payloads held before the stream waits for them to be passed on (a relay catching up). */
const HELD_AT_MOST = 5_000;

/** How long the relay waits before it looks again whether every session sees a commit. */
const UNSEEN_RETRY_MS = 1;

/**
 * The payloads notified, in one statement, once a snapshot taken now sees every transaction
 * they tell of (`SEEN_BY_ALL`); none while one is not seen yet.
 */
const NOTIFY_WHEN_SEEN = /* sql */ `
SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload WHERE ${SEEN_BY_ALL}($3::bigint[])`;

/**
 * What a relay does with the stream: each committed transaction turned into the trigger feed's
 * payloads (`walChanges.ts`), passed on to every process in one NOTIFY transaction for all the
 * payloads that came while the last was sent (never one a commit), and only then confirmed, so
 * a relay that dies leaves the next one to send what it had not (twice at worst: a change heard
 * again re-runs its readers once more, and they find the same result).
 */
export class WalPassOn {
  readonly #relations: WalRelations;
  #transaction: WalTransaction | undefined;
  /** The id of the transaction whose changes come now. */
  #xid: number | undefined;
  #held: string[] = [];
  /** The transactions the payloads held tell of, to be seen by every session before they are. */
  #heldXids: number[] = [];
  #heldLsn: string | undefined;
  /**
   * Whether a turn of sending runs. Set and cleared with no await between the look at what is
   * held and the clearing: a payload held in between would wait for the next commit.
   */
  #sending = false;
  /** The turn of sending that runs, or the last: a relay catching up waits on it. */
  #drained: Promise<void> = Promise.resolve();
  #failed: Error | undefined;
  /** The last position confirmed: every keepalive is answered with it when the relay is busy. */
  #confirmed: string;

  constructor(
    /** The relay's own connection: a pool the app has exhausted must not stop the relay. */
    private readonly db: PgQueryable,
    private readonly stream: WalStream,
    confirmed: string,
    /** Where changes go besides the feed's channel: the bus, when the app has one. */
    private readonly bus?: BusPublisher,
  ) {
    this.#relations = new WalRelations(db);
    this.#confirmed = confirmed;
  }

  /** Takes the next message; rejects once passing on failed (the relay stops, the next one resends). */
  async take(message: WalMessage): Promise<void> {
    if (this.#failed) throw this.#failed;
    if (message.tag === "keepalive") return this.#keepalive(message.lsn, message.behindNothing);
    switch (message.tag) {
      case "relation":
        return this.#relations.learn(message);
      case "begin":
        this.#transaction = new WalTransaction();
        this.#xid = message.xid;
        return;
      case "commit":
        this.#hold(
          this.#transaction?.payloads() ?? [],
          message.commitEndLsn ?? undefined,
          this.#xid,
        );
        this.#transaction = undefined;
        this.#xid = undefined;
        if (this.#held.length > HELD_AT_MOST) await this.#drained;
        return;
      case "message":
        return this.#said(message.prefix, message.transactional, message.content);
      default:
        return this.#wrote(message);
    }
  }

  /** Why passing on failed (the stream was stopped for it), if it did. */
  get failure(): Error | undefined {
    return this.#failed;
  }

  /** Says `payload` to every process now, before what the stream brings next (a gap after a new slot). */
  say(payload: string): void {
    this.#hold([payload], undefined);
  }

  /**
   * A row written, as its images; one livecmd cannot image counts as its whole table, so that
   * no row the relay cannot read stops it (and every relay after it) on the same position.
   */
  #wrote(message: Extract<WalMessage, { tag: "insert" | "update" | "delete" | "truncate" }>): void {
    const transaction = (this.#transaction ??= new WalTransaction());
    try {
      this.#image(transaction, message);
    } catch {
      const relations = message.tag === "truncate" ? message.relations : [message.relation];
      for (const relation of relations) transaction.truncated(this.#relations.of(relation));
    }
  }

  #image(
    transaction: WalTransaction,
    message: Extract<WalMessage, { tag: "insert" | "update" | "delete" | "truncate" }>,
  ): void {
    if (message.tag === "truncate") {
      for (const relation of message.relations) transaction.truncated(this.#relations.of(relation));
      return;
    }
    const relation = this.#relations.of(message.relation);
    if (message.tag === "insert") return transaction.wrote(relation, message.new);
    if (message.tag === "delete") return transaction.wrote(relation, message.old ?? message.key);
    // Without REPLICA IDENTITY FULL an unchanged key comes with no old row: its key alone is known.
    const old = message.old ?? message.key ?? keyColumns(message.new, relation.keys);
    transaction.wrote(relation, old, message.new);
  }

  #said(prefix: string, transactional: boolean, content: Uint8Array): void {
    if (prefix !== MESSAGE_PREFIX) return;
    const payload = Buffer.from(content).toString("utf8");
    if (transactional && this.#transaction) this.#transaction.said(payload);
    else this.#hold([payload], undefined);
  }

  /**
   * Answers the server's keepalive, confirming its position when everything before it has been
   * passed on (the server's own apply worker does the same): so a slot on a database whose
   * writes are elsewhere still lets its WAL go. Otherwise the last position passed on.
   */
  async #keepalive(lsn: string, behindNothing: boolean): Promise<void> {
    const idle = !this.#transaction && !this.#sending && this.#held.length === 0;
    if (behindNothing && idle) this.#confirmed = lsn;
    await this.stream.confirm(this.#confirmed);
  }

  #hold(payloads: readonly string[], lsn: string | undefined, xid?: number): void {
    this.#held.push(...payloads);
    if (xid !== undefined && payloads.length > 0) this.#heldXids.push(xid);
    if (lsn !== undefined) this.#heldLsn = lsn;
    if (this.#sending) return;
    this.#sending = true;
    this.#drained = this.#send();
  }

  /** Sends what is held, in turns, until nothing is; a failure stops the relay. */
  async #send(): Promise<void> {
    try {
      while (this.#held.length > 0 || this.#heldLsn !== undefined) {
        const payloads = this.#held;
        const xids = this.#heldXids;
        const lsn = this.#heldLsn;
        this.#held = [];
        this.#heldXids = [];
        this.#heldLsn = undefined;
        if (payloads.length > 0) {
          await this.#notifyWhenSeen(payloads, xids);
          await this.bus?.publish(payloads, lsn, (table) => this.#relations.keysOf(table));
        }
        if (lsn !== undefined) {
          await this.stream.confirm(lsn);
          this.#confirmed = lsn;
        }
      }
    } catch (error) {
      this.#failed = error as Error;
      await this.stream.stop();
    } finally {
      this.#sending = false;
    }
  }
  /** Notifies `payloads` once every session sees the transactions `xids` they tell of. */
  async #notifyWhenSeen(payloads: readonly string[], xids: readonly number[]): Promise<void> {
    for (;;) {
      const { rows } = await this.db.query({
        text: NOTIFY_WHEN_SEEN,
        values: [CHANGES_CHANNEL, payloads, xids],
      });
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, UNSEEN_RETRY_MS));
    }
  }
}

/** The key columns of `tuple`: an old row's image when only its key is known. */
function keyColumns(tuple: WalTuple, keys: ReadonlySet<string>): WalTuple {
  return Object.fromEntries(Object.entries(tuple).filter(([column]) => keys.has(column)));
}
