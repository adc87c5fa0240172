import type { AppDatabase, Database, RunResult, SqlParam, TableObserver } from "../database.ts";

/**
 * The app's database while its driver still connects (a Prisma adapter connects asynchronously):
 * every statement waits for `opening`, then goes to the database it resolved to; what the runtime
 * asks at once is answered as by a database that is not there yet.
 */
export class DeferredDatabase implements AppDatabase {
  #opened: AppDatabase | undefined;

  constructor(
    private readonly opening: Promise<AppDatabase>,
    private readonly observer?: TableObserver,
  ) {
    opening.then(
      (database) => (this.#opened = database),
      () => {},
    );
  }

  observedBy(observer: TableObserver): Database {
    return new DeferredDatabase(this.opening, observer);
  }

  async all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return (await this.#view()).all<T>(sql, ...params);
  }

  async get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return (await this.#view()).get<T>(sql, ...params);
  }

  async run(sql: string, ...params: SqlParam[]): Promise<RunResult> {
    return (await this.#view()).run(sql, ...params);
  }

  async transaction<T>(fn: () => Promise<T> | T): Promise<T> {
    return (await this.#view()).transaction(fn);
  }

  servingProblem(): string | undefined {
    return this.#opened ? this.#opened.servingProblem() : "the database is not connected yet";
  }

  sharedSessions(): ReturnType<AppDatabase["sharedSessions"]> {
    return this.#opened?.sharedSessions();
  }

  spentConfirmations(): ReturnType<AppDatabase["spentConfirmations"]> {
    return this.#opened?.spentConfirmations();
  }

  handleText(): string {
    return this.#opened?.handleText() ?? "Prisma's adapter, still connecting";
  }

  keyText(key: string): string {
    return this.#opened ? this.#opened.keyText(key) : JSON.stringify(key);
  }

  async caughtUp(): Promise<void> {
    await (await this.opening).caughtUp();
  }

  async hearing(): Promise<void> {
    await (await this.opening).hearing();
  }

  async close(): Promise<void> {
    await (await this.opening.catch(() => undefined))?.close();
  }

  async #view(): Promise<Database> {
    const database = await this.opening;
    return this.observer ? database.observedBy(this.observer) : database;
  }
}
