import { ANY_TABLE } from "../../anyTable.ts";
import { anyRowsOf, type RowImage, type TableChange } from "../../keyedAccess.ts";

/**
 * The change a change-feed notification carries: `{"table": t, "rows": [images]}` (the key
 * columns of each changed row version), `{"table": t}` (rows not known: TRUNCATE, too many to
 * fit, a materialized view refreshed) or `{"schema": tag}` (DDL that may change what statements
 * read: every table, and every plan to be read again). A payload that is not JSON is a table's
 * name, as triggers installed by earlier versions send it (a process may hear one while another
 * is migrating the feed): any rows of it.
 *
 * Anyone who may `NOTIFY` on the channel can send anything, so what does not have this shape
 * is never dropped: images that are not images are any row of their table, and JSON that names
 * no table is every table.
 */
export function changeOfPayload(payload: string): TableChange {
  if (!payload.startsWith("{")) return anyRowsOf(payload);
  const parsed = parsedJson(payload);
  if (typeof parsed?.schema === "string" || typeof parsed?.table !== "string")
    return anyRowsOf(ANY_TABLE);
  return isImageList(parsed.rows)
    ? { table: parsed.table, rows: parsed.rows }
    : anyRowsOf(parsed.table);
}

function parsedJson(payload: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(payload);
    return typeof parsed === "object" && parsed !== null
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isImageList(rows: unknown): rows is RowImage[] {
  return Array.isArray(rows) && rows.every(isImage);
}

function isImage(row: unknown): row is RowImage {
  return (
    typeof row === "object" &&
    row !== null &&
    !Array.isArray(row) &&
    Object.values(row).every((value) => value === null || typeof value === "string")
  );
}
