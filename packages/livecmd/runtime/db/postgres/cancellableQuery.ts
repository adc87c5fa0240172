import { keepServing } from "../../live/keepServing.ts";
import { throwIfCancelled } from "../runCancelled.ts";
import type { PgClient, PgPool, PgQueryConfig, PgQueryResult } from "./pgShapes.ts";

/**
 * Sends `config` on the transaction's connection, else the pool's. With a `signal`, the
 * statement runs on a connection this call holds, whose backend PostgreSQL is asked to cancel
 * (`pg_cancel_backend`, from another connection) when the signal fires: node-postgres takes no
 * signal of its own. A connection whose statement was cancelled is not given back to the pool,
 * so a cancel that lands late cannot hit the next statement sent on it.
 */
export async function cancellableQuery(
  pool: PgPool,
  transaction: PgClient | undefined,
  config: PgQueryConfig,
  signal: AbortSignal | undefined,
): Promise<PgQueryResult> {
  if (!signal) return (transaction ?? pool).query(config);
  throwIfCancelled(signal);
  const client = transaction ?? (await pool.connect());
  const cancel = keepServing(
    "cancelling a PostgreSQL statement",
    () =>
      void pool
        .query({ text: "SELECT pg_cancel_backend($1)", values: [client.processID ?? 0] })
        .catch(() => {}),
  );
  signal.addEventListener("abort", cancel, { once: true });
  try {
    return await client.query(config);
  } finally {
    signal.removeEventListener("abort", cancel);
    if (!transaction) client.release(signal.aborted);
  }
}
