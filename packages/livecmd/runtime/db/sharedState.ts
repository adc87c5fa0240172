/**
 * What the processes serving one database share through it, as the rest of the runtime sees it
 * (`model/`, `server/sessions/`, `live/`): the 2025-era sessions and the spent confirmations. A
 * dialect keeps them in its own tables (PostgreSQL's `postgres/sessions/`, the SQLite file's);
 * nothing outside it names how.
 */

/** A shared 2025-era session as stored: whom it belongs to, and the `initialize` params it opened with. */
export interface StoredSession {
  readonly principal: string | undefined;
  readonly initialize: unknown;
}

/** One `resources/subscribe` of a session, and a digest of the result its client last heard of. */
export interface StoredSubscription {
  readonly uri: string;
  readonly seen: string;
}

/**
 * What one serving process tells the others about a shared 2025-era session: its subscriptions
 * changed (the process holding its GET stream watches what the store now holds), one was ended
 * (that process stops watching it at once, before any change notified after it arrives on the
 * same connection), a process took its GET stream (any other that held it lets it go), it was
 * closed (every process drops its copy), or its client answered a request of another process's
 * copy (`answer`, a JSON-RPC response whose id names that copy: `SessionAnswers`).
 */
export type SessionMessage =
  | { readonly session: string; readonly subscriptions: true }
  | { readonly session: string; readonly unsubscribed: string }
  | { readonly session: string; readonly stream: string }
  | { readonly session: string; readonly closed: true }
  | { readonly session: string; readonly answer: RelayedAnswer };

/** A client's answer relayed to the process whose request it answers (`server/sessions/sessionAnswers.ts`). */
export interface RelayedAnswer {
  readonly jsonrpc: "2.0";
  readonly id: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * The 2025-era sessions every serving process on one database shares, and the messages they
 * send each other about them.
 */
export interface SessionStore {
  create(id: string, principal: string | undefined, initialize: unknown): Promise<void>;
  load(id: string): Promise<StoredSession | undefined>;
  /** Ends a session and its subscriptions; tells the other processes. */
  end(id: string): Promise<void>;
  /** Marks the sessions as active now (a process has a request or stream of theirs open). */
  touch(ids: readonly string[]): Promise<void>;
  /**
   * Ends every session no process has marked active for `idleMs`, and tells the others; returns
   * their ids. Whichever process runs it first reclaims them.
   */
  expire(idleMs: number): Promise<string[]>;
  subscriptions(id: string): Promise<StoredSubscription[]>;
  /**
   * Records a subscription (again: its digest is replaced) unless the session already has
   * `limit` others; false when it has. Tells the process holding the session's stream.
   */
  subscribe(id: string, uri: string, seen: string, limit: number): Promise<boolean>;
  unsubscribe(id: string, uri: string): Promise<void>;
  /** What the client of a subscription was last told of. */
  saw(id: string, uri: string, seen: string): Promise<void>;
  tell(message: SessionMessage): Promise<void>;
  /** Hears the processes' messages; `undefined` after a lost connection came back (some may be lost). */
  hear(heard: (message: SessionMessage | undefined) => void): Promise<() => void>;
  /** Whether the database answers (`/healthz`). */
  ping(): Promise<void>;
}

/**
 * The confirmations spent in a database (`server/policy/spentConfirmations.ts`): `spend` records
 * `id` until `expiresAt` (ms since the epoch), false when it already was.
 */
export interface StoredSpentConfirmations {
  spend(id: string, expiresAt: number): Promise<boolean>;
}

/** What a database keeps for every process serving it, each absent when it cannot. */
export interface SharedState {
  /** The 2025-era sessions, when several processes may serve the database (PostgreSQL). */
  readonly sessions: SessionStore | undefined;
  /** The 2026-era confirmations accepted, each spent once (not on a read-only SQLite file). */
  readonly spentConfirmations: StoredSpentConfirmations | undefined;
}
