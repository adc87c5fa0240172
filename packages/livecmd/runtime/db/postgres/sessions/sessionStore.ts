import type { PgPool } from "../pgLibrary.ts";
import type {
  SessionMessage,
  SessionStore,
  StoredSession,
  StoredSubscription,
} from "../../sharedState.ts";
import { sessionMessageOf } from "./sessionMessage.ts";
import { SESSION_TABLES, SESSIONS_CHANNEL } from "./sessionTables.ts";

/** What the shared state is kept through: the database's pool, and its change feed's connection. */
export interface SharedOn {
  /** The pool, once the database is ready. */
  pool(): Promise<PgPool>;
  /** Hears NOTIFY `channel` on the change feed's connection (`PostgresDatabase.hear`). */
  hear(channel: string, heard: (payload: string | undefined) => void): Promise<() => void>;
}

const { sessions: SESSIONS, subscriptions: SUBSCRIPTIONS } = SESSION_TABLES;

/**
 * The 2025-era sessions every serving process on one PostgreSQL database shares
 * (`sessionTables.ts`), and the messages they send each other about them (`SESSIONS_CHANNEL`, on
 * the change feed's LISTEN connection). Statements go straight to the pool: they are livecmd's,
 * not the app's, and read nothing a subscription watches.
 */
export class PostgresSessionStore implements SessionStore {
  readonly #db: SharedOn;

  constructor(db: SharedOn) {
    this.#db = db;
  }

  async create(id: string, principal: string | undefined, initialize: unknown): Promise<void> {
    await this.#query(`INSERT INTO ${SESSIONS} (id, principal, initialize) VALUES ($1, $2, $3)`, [
      id,
      principal ?? null,
      JSON.stringify(initialize),
    ]);
  }

  async load(id: string): Promise<StoredSession | undefined> {
    const [row] = (await this.#query(
      `SELECT principal, initialize FROM ${SESSIONS} WHERE id = $1`,
      [id],
    )) as { principal: string | null; initialize: unknown }[];
    return row && { principal: row.principal ?? undefined, initialize: row.initialize };
  }

  /** Ends a session and its subscriptions; tells the other processes. */
  async end(id: string): Promise<void> {
    await this.#query(`DELETE FROM ${SESSIONS} WHERE id = $1`, [id]);
    await this.tell({ session: id, closed: true });
  }

  /** Marks the sessions as active now (a process has a request or stream of theirs open). */
  async touch(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#query(`UPDATE ${SESSIONS} SET last_active = now() WHERE id = ANY($1)`, [ids]);
  }

  /**
   * Ends every session no process has marked active for `idleMs`, and tells the others; returns
   * their ids. Whichever process runs it first reclaims them.
   */
  async expire(idleMs: number): Promise<string[]> {
    const rows = (await this.#query(
      `DELETE FROM ${SESSIONS} WHERE last_active < now() - make_interval(secs => $1) RETURNING id`,
      [idleMs / 1000],
    )) as { id: string }[];
    for (const { id } of rows) await this.tell({ session: id, closed: true });
    return rows.map(({ id }) => id);
  }

  async subscriptions(id: string): Promise<StoredSubscription[]> {
    return (await this.#query(
      `SELECT uri, seen FROM ${SUBSCRIPTIONS} WHERE session_id = $1 ORDER BY uri`,
      [id],
    )) as StoredSubscription[];
  }

  /**
   * Records a subscription (again: its digest is replaced) unless the session already has
   * `limit` others; false when it has. Tells the process holding the session's stream.
   */
  async subscribe(id: string, uri: string, seen: string, limit: number): Promise<boolean> {
    const rows = await this.#query(
      `INSERT INTO ${SUBSCRIPTIONS} (session_id, uri, seen)
       SELECT $1, $2, $3
        WHERE (SELECT count(*) FROM ${SUBSCRIPTIONS} WHERE session_id = $1 AND uri <> $2) < $4
       ON CONFLICT (session_id, uri) DO UPDATE SET seen = EXCLUDED.seen
       RETURNING 1`,
      [id, uri, seen, limit],
    );
    if (rows.length === 0) return false;
    await this.tell({ session: id, subscriptions: true });
    return true;
  }

  async unsubscribe(id: string, uri: string): Promise<void> {
    await this.#query(`DELETE FROM ${SUBSCRIPTIONS} WHERE session_id = $1 AND uri = $2`, [id, uri]);
    await this.tell({ session: id, unsubscribed: uri });
  }

  /** What the client of a subscription was last told of. */
  async saw(id: string, uri: string, seen: string): Promise<void> {
    await this.#query(`UPDATE ${SUBSCRIPTIONS} SET seen = $3 WHERE session_id = $1 AND uri = $2`, [
      id,
      uri,
      seen,
    ]);
  }

  async tell(message: SessionMessage): Promise<void> {
    await this.#query("SELECT pg_notify($1, $2)", [SESSIONS_CHANNEL, JSON.stringify(message)]);
  }

  /** Hears the processes' messages; `undefined` after the LISTEN connection came back (some may be lost). */
  async hear(heard: (message: SessionMessage | undefined) => void): Promise<() => void> {
    return this.#db.hear(SESSIONS_CHANNEL, (payload) => {
      if (payload === undefined) return heard(undefined);
      const message = sessionMessageOf(payload);
      if (message) heard(message);
    });
  }

  /** Whether the database answers (`/healthz`). */
  async ping(): Promise<void> {
    await this.#query("SELECT 1", []);
  }

  async #query(text: string, values: unknown[]): Promise<unknown[]> {
    const pool: PgPool = await this.#db.pool();
    return (await pool.query({ text, values })).rows;
  }
}
