/**
 * The confirmations that were accepted (a 2026-07-28 `requestState`'s id), each kept until the
 * state it came in expires, so that a client that sends the same yes again (a retry, a replay)
 * does not run the command twice. They are kept in the app's database: on PostgreSQL in a table
 * every replica records in (`db/postgres/spentConfirmations.ts`), on SQLite in the file
 * (`db/sqlite/spentConfirmations.ts`), so a yes spent by one process is spent for all, and after
 * a restart; in memory without a database that can keep them.
 */
export interface SpentConfirmations {
  /** Records `id` as spent until `expiresAt` (ms since the epoch); false when it already was. */
  spend(id: string, expiresAt: number): Promise<boolean>;
}

/** The spent confirmations of this process. */
export class SpentInMemory implements SpentConfirmations {
  readonly #until = new Map<string, number>();

  spend(id: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    // Confirmations are asked of people: a few a minute, so a pass over those kept is cheap.
    for (const [spent, until] of this.#until) if (until < now) this.#until.delete(spent);
    if (this.#until.has(id)) return Promise.resolve(false);
    this.#until.set(id, expiresAt);
    return Promise.resolve(true);
  }
}
