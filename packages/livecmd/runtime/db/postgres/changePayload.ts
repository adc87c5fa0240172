import { ANY_TABLE } from "../anyTable.ts";
import { anyRowsOf, type RowImage, type TableChange } from "../keyedAccess.ts";

/**
 * The change a change-feed notification carries: `{"table": t, "rows": [images]}` (the key
 * columns of each changed row version), `{"table": t}` (rows not known: TRUNCATE, too many to
 * fit, a materialized view refreshed) or `{"schema": tag}` (DDL that may change what statements
 * read: every table, and every plan to be read again). A payload that is not such JSON is a table's name, as triggers installed by earlier
 * versions send it (a process may hear one while another is migrating the feed): any rows of it.
 */
export function changeOfPayload(payload: string): TableChange {
  const parsed = parsedPayload(payload);
  if (!parsed) return anyRowsOf(payload);
  if ("schema" in parsed) return anyRowsOf(ANY_TABLE);
  return parsed.rows ? { table: parsed.table, rows: parsed.rows } : anyRowsOf(parsed.table);
}

type Payload = { table: string; rows?: RowImage[] } | { schema: string };

function parsedPayload(payload: string): Payload | undefined {
  if (!payload.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(payload) as { table?: unknown; schema?: unknown };
    return typeof parsed.table === "string" || typeof parsed.schema === "string"
      ? (parsed as Payload)
      : undefined;
  } catch {
    return undefined;
  }
}
