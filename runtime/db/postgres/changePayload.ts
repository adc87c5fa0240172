import { anyRowsOf, type RowImage, type TableChange } from "../keyedAccess.ts";

/**
 * The change a change-feed notification carries: `{"table": t, "rows": [images]}` (the key
 * columns of each changed row version) or `{"table": t}` (rows not known: TRUNCATE, too many to
 * fit). A payload that is not such JSON is a table's name, as triggers installed by earlier
 * versions send it (a process may hear one while another is migrating the feed): any rows of it.
 */
export function changeOfPayload(payload: string): TableChange {
  const parsed = parsedPayload(payload);
  if (!parsed) return anyRowsOf(payload);
  return parsed.rows ? { table: parsed.table, rows: parsed.rows } : anyRowsOf(parsed.table);
}

interface Payload {
  table: string;
  rows?: RowImage[];
}

function parsedPayload(payload: string): Payload | undefined {
  if (!payload.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(payload) as Partial<Payload>;
    return typeof parsed.table === "string" ? (parsed as Payload) : undefined;
  } catch {
    return undefined;
  }
}
