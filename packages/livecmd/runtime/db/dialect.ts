import type { KeyValue } from "./keyedAccess.ts";
import type { SharedState } from "./sharedState.ts";

/** One duty of a dialect, in the signature its engine needs. */
type Duty = (...args: never[]) => unknown;

/**
 * What livecmd needs of a database's own engine, whichever library reaches it: what its
 * database (`sqlite/sqliteDatabase.ts`, `postgres/postgresDatabase.ts`) goes through for all
 * the engine decides. Each dialect folder (`sqlite/`, `postgres/`) holds one, with a door per
 * duty: `plan/`, `changes/`. A driver (`better-sqlite3/`, `node-postgres/`...) stands above its
 * dialect: it finds the connection, and its dialect does the rest. A second way of capturing
 * PostgreSQL's changes, or a third database, is another dialect.
 *
 * The duties' signatures are the engine's own (SQLite plans at once on its connection,
 * PostgreSQL asks a server): `PlanReads` and `OpenChanges` say them, `Opened` is the database
 * whose state is shared.
 */
export interface Dialect<PlanReads extends Duty, OpenChanges extends Duty, Opened> {
  /** The database, as messages name it. */
  readonly name: string;
  /** Reads the plan of one statement: the rows of each table it reads (the dialect's `plan/`). */
  readonly planReads: PlanReads;
  /** Starts capturing the rows every committed write changes, by any writer (its `changes/`). */
  readonly openChanges: OpenChanges;
  /** A key value as `livecmd inspect --reads` prints it (`AppDatabase.keyText`). */
  keyText(key: KeyValue): string;
  /** What the processes serving `database` share through it (`sharedState.ts`). */
  sharedState(database: Opened): SharedState;
}
