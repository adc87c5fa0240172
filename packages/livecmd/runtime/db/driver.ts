import type { AppDatabase } from "./database.ts";
import type { TableChange } from "./keyedAccess.ts";
import type { RunScope } from "./runScope.ts";

/** What an app opens its database with: where its writes are told, and its command runs. */
export interface DatabaseOwner {
  /** Told what every committed write changed. */
  changed(changes: readonly TableChange[]): void;
  /** The app's command runs, which its statements report to. */
  readonly runs: RunScope;
}

/**
 * One library through which livecmd watches an app's database: it recognises the handle the app
 * gives `defineApp({ database })` (or that the app's database function returns) and opens it.
 * Opened, every statement the app makes through that handle (whatever builds it: the app's SQL,
 * Drizzle, Kysely, Prisma) is observed for the command run it belongs to (`runScope.ts`),
 * explained by the database's own plan, and every committed write is captured as the rows it
 * changed. Each driver lives in its folder under db/ and is registered once, in
 * `open/openDatabase.ts`; nothing else in the runtime knows a driver's classes.
 */
export interface DatabaseDriver {
  /** The library, as messages name it. */
  readonly name: string;
  /**
   * What would stop it from opening a handle in this process (a native module built for another
   * Node.js, which crashes as it loads), checked before the app's database function runs; `from`
   * is where the app is (a file, or a folder ending in `/`).
   */
  loadProblem?(from: string): string | undefined;
  /** Whether `handle` is this driver's to open. */
  accepts(handle: unknown): boolean;
  /** Opens `owner`'s database on `handle`. */
  open(handle: unknown, owner: DatabaseOwner): AppDatabase;
}
