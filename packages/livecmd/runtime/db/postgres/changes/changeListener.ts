import { keepServing } from "../../../problems/keepServing.ts";
import { clientSocket } from "../clientSocket.ts";
import { ANY_TABLE } from "../../anyTable.ts";
import { anyRowsOf, type TableChange } from "../../keyedAccess.ts";
import { ANNOUNCE, CHANGES_CHANNEL } from "./changeFeed.ts";
import { caughtUpMarker, isCaughtUpMarker } from "./caughtUpMarker.ts";
import { changeOfPayload } from "./changePayload.ts";
import type { PgClient, PgNotification, PgPool } from "../pgLibrary.ts";

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/**
 * One connection that LISTENs to the change feed and reports each notified change. When the
 * connection drops it reconnects, waiting longer after each failure (100 ms doubling to 5 s),
 * then reports every table changed (`ANY_TABLE`): a notification sent while it was away is lost,
 * and re-running every subscription once is what makes sure no update is.
 */
export class ChangeListener {
  #client: PgClient | undefined;
  #retryMs = FIRST_RETRY_MS;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #markers = 0;
  readonly #waiting = new Map<string, () => void>();
  /** Other channels heard on this connection, and who hears each. */
  readonly #heard = new Map<string, Set<(payload: string | undefined) => void>>();

  constructor(
    /** The pool to take the listening connection from (known once the database is found). */
    private readonly pool: () => PgPool,
    private readonly changed: (changes: readonly TableChange[]) => void,
    private readonly log: (line: string) => void,
    /** Whether it hears the change feed's channel; not when changes come by the bus. */
    private readonly hearsFeed = true,
  ) {}

  /** Resolves once listening; rejects when the first connection fails (nothing is retried then). */
  async start(): Promise<void> {
    await this.#connect();
  }

  /**
   * Resolves once every notification committed before the call has arrived: PostgreSQL delivers
   * them in commit order, so a marker announced now arrives after all of them (by NOTIFY; or, in
   * the `logical` mode, by the relay, which passes changes on in commit order too).
   */
  async caughtUp(): Promise<void> {
    if (!this.#client) return;
    const marker = caughtUpMarker((this.#markers += 1));
    const arrived = new Promise<void>((resolve) => this.#waiting.set(marker, resolve));
    this.#holdProcess();
    await this.pool().query({ text: `SELECT ${ANNOUNCE}($1)`, values: [marker] });
    await arrived;
  }

  /**
   * Hears `channel` on the same connection as the change feed (one LISTEN connection a
   * process): `heard(payload)` for each notification, and `heard(undefined)` after a reconnect,
   * since what was sent meanwhile is lost. Returns what stops hearing.
   */
  async hear(channel: string, heard: (payload: string | undefined) => void): Promise<() => void> {
    const hearers = this.#heard.get(channel) ?? new Set();
    if (!this.#heard.has(channel)) {
      this.#heard.set(channel, hearers);
      await this.#client?.query({ text: `LISTEN ${channel}` });
    }
    hearers.add(heard);
    return () => hearers.delete(heard);
  }

  /** Whether the LISTEN connection is up now (a readiness check asks). */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopWaiting();
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    client?.release(true);
  }

  async #connect(): Promise<void> {
    const client = await this.pool().connect();
    let lost = false;
    const drop = (error?: Error) => {
      if (lost || this.#closed) return;
      lost = true;
      client.release(true);
      if (this.#client !== client) return; // never listened: whoever connected is told
      this.#client = undefined;
      this.#stopWaiting();
      if (!this.#closed) this.#reconnectLater(error);
    };
    const dropped = keepServing(
      "dropping a lost PostgreSQL change feed connection",
      drop,
      this.log,
    );
    client.on("error", dropped);
    client.on("end", () => dropped());
    client.on(
      "notification",
      keepServing(
        "handling a PostgreSQL change feed notification",
        ({ channel, payload }: PgNotification) => this.#notified(channel, payload),
        this.log,
      ),
    );
    try {
      if (this.hearsFeed) await client.query({ text: `LISTEN ${CHANGES_CHANNEL}` });
      for (const channel of this.#heard.keys()) await client.query({ text: `LISTEN ${channel}` });
    } catch (error) {
      drop(error as Error);
      throw error;
    }
    this.#client = client;
    this.#holdProcess();
  }

  #notified(channel: string, payload: string | undefined): void {
    if (channel !== CHANGES_CHANNEL) {
      for (const heard of this.#heard.get(channel) ?? []) heard(payload);
      return;
    }
    if (!payload) return;
    if (!isCaughtUpMarker(payload)) return this.changed([changeOfPayload(payload)]);
    this.#waiting.get(payload)?.();
    this.#waiting.delete(payload);
    this.#holdProcess();
  }

  /**
   * The listening connection alone does not keep a process alive (a test, a script that used the
   * app): a server is kept alive by what it serves. It does while a `caughtUp` waits on it.
   */
  #holdProcess(): void {
    const socket = clientSocket(this.#client);
    if (this.#waiting.size > 0) socket?.ref?.();
    else socket?.unref?.();
  }

  /** Markers that can no longer arrive (the connection is gone; the reconnect re-runs all). */
  #stopWaiting(): void {
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
  }

  #reconnectLater(error: Error | undefined): void {
    const wait = this.#retryMs;
    this.#retryMs = Math.min(wait * 2, LAST_RETRY_MS);
    this.log(
      `livecmd: the PostgreSQL change feed connection was lost${error ? ` (${error.message})` : ""}; reconnecting in ${wait} ms`,
    );
    const back = keepServing(
      "re-running every subscription after the PostgreSQL change feed came back",
      () => {
        this.#retryMs = FIRST_RETRY_MS;
        this.log(
          this.hearsFeed
            ? "livecmd: the PostgreSQL change feed is back; re-running every subscription once"
            : "livecmd: the PostgreSQL change feed is back (its changes come by the bus: nothing to re-run)",
        );
        if (this.hearsFeed) this.changed([anyRowsOf(ANY_TABLE)]);
        for (const hearers of this.#heard.values()) for (const heard of hearers) heard(undefined);
      },
      this.log,
    );
    const retry = keepServing(
      "reconnecting to the PostgreSQL change feed",
      () =>
        void this.#connect().then(back, (failure: Error) => {
          if (!this.#closed) this.#reconnectLater(failure);
        }),
      this.log,
    );
    this.#retry = setTimeout(retry, wait);
    this.#retry.unref();
  }
}
