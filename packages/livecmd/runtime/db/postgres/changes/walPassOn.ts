import type { PgQueryable } from "../pgLibrary.ts";
import { CHANGES_CHANNEL } from "./changeFeed.ts";
import { MESSAGE_PREFIX, WalTransaction } from "./walChanges.ts";
import type { WalMessage, WalStream, WalTuple } from "./walMessage.ts";
import { WalRelations } from "./walRelations.ts";

/** Payloads held before the stream waits for them to be passed on (a relay catching up). */
const HELD_AT_MOST = 5_000;

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
  #held: string[] = [];
  #heldLsn: string | undefined;
  #sending: Promise<void> | undefined;
  #failed: Error | undefined;
  /** The last position confirmed: every keepalive is answered with it when the relay is busy. */
  #confirmed: string;

  constructor(
    /** The relay's own connection: a pool the app has exhausted must not stop the relay. */
    private readonly db: PgQueryable,
    private readonly stream: WalStream,
    confirmed: string,
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
        return;
      case "commit":
        this.#hold(this.#transaction?.payloads() ?? [], message.commitEndLsn ?? undefined);
        this.#transaction = undefined;
        if (this.#held.length > HELD_AT_MOST) await this.#sending;
        return;
      case "message":
        return this.#said(message.prefix, message.transactional, message.content);
      default:
        return this.#wrote(message);
    }
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

  #hold(payloads: readonly string[], lsn: string | undefined): void {
    this.#held.push(...payloads);
    if (lsn !== undefined) this.#heldLsn = lsn;
    this.#sending ??= this.#send().finally(() => (this.#sending = undefined));
  }

  /** Sends what is held, in turns, until nothing is; a failure stops the relay. */
  async #send(): Promise<void> {
    try {
      while (this.#held.length > 0 || this.#heldLsn !== undefined) {
        const payloads = this.#held;
        const lsn = this.#heldLsn;
        this.#held = [];
        this.#heldLsn = undefined;
        if (payloads.length > 0)
          await this.db.query({
            text: "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload",
            values: [CHANGES_CHANNEL, payloads],
          });
        if (lsn !== undefined) {
          await this.stream.confirm(lsn);
          this.#confirmed = lsn;
        }
      }
    } catch (error) {
      this.#failed = error as Error;
      await this.stream.stop();
    }
  }
}

/** The key columns of `tuple`: an old row's image when only its key is known. */
function keyColumns(tuple: WalTuple, keys: ReadonlySet<string>): WalTuple {
  return Object.fromEntries(Object.entries(tuple).filter(([column]) => keys.has(column)));
}
