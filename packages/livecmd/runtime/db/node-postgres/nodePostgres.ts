import type { DatabaseDriver } from "../driver.ts";
import type { PostgresSource } from "./postgres.ts";

/** PostgreSQL through node-postgres: what `postgres(url | pool)` made. */
export const nodePostgres: DatabaseDriver = {
  name: "node-postgres",
  accepts: (handle) => (handle as Partial<PostgresSource> | undefined)?.kind === "postgres",
  open: (handle, { changed, runs }) => (handle as PostgresSource).open(changed, runs),
};
