import { keepServing } from "../../problems/keepServing.ts";
import { throwIfCancelled } from "../runCancelled.ts";
import type { PgClient, PgPool, PgQueryConfig, PgQueryResult } from "./pgLibrary.ts";

/**
 * Sends `config` on the transaction's connection, else the pool's. With a `signal`, the
 * statement runs on a connection this call holds, whose backend PostgreSQL is asked to cancel
 * when the signal fires (`whileCancellable`). A connection whose statement was cancelled is not
 * given back to the pool, so a cancel that lands late cannot hit the next statement sent on it.
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
  try {
    return await whileCancellable(pool, client.processID, signal, () => client.query(config));
  } finally {
    if (!transaction) client.release(signal.aborted);
  }
}

/**
 * Runs `send`, a statement on the backend `processID`, asking PostgreSQL to cancel it (with
 * `pg_cancel_backend`, from another of `pool`'s connections: node-postgres takes no signal of its
 * own) when `signal` fires meanwhile. Settles only once the cancel was delivered, so that it
 * cannot land on a statement sent after this one settled.
 */
export async function whileCancellable<T>(
  pool: PgPool,
  processID: number | null | undefined,
  signal: AbortSignal,
  send: () => Promise<T>,
): Promise<T> {
  let cancelling: Promise<unknown> | undefined;
  const cancel = keepServing(
    "cancelling a PostgreSQL statement",
    () =>
      void (cancelling = pool
        .query({ text: "SELECT pg_cancel_backend($1)", values: [processID ?? 0] })
        .catch(() => {})),
  );
  signal.addEventListener("abort", cancel, { once: true });
  try {
    return await send();
  } finally {
    signal.removeEventListener("abort", cancel);
    await cancelling;
  }
}
