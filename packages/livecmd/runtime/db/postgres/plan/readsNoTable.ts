/**
 * Statements that end or shape a transaction or a session, which read no table and which
 * PostgreSQL cannot EXPLAIN: the `begin` and `commit` Drizzle, Kysely and Prisma send around a
 * transaction on the app's own pool, a savepoint, a `SET`. Explained, each would fail and count
 * as reading every table, so a run with a transaction would re-run on any write.
 */
const NO_TABLE =
  /^\s*(?:begin|start\s+transaction|commit|end|rollback|abort|savepoint|release|set|reset|show|discard|deallocate)\b/i;

/** Whether `text` is one statement of those (no `;` after it: several statements are explained). */
export function readsNoTable(text: string): boolean {
  return NO_TABLE.test(text) && !/;\s*\S/.test(text);
}
