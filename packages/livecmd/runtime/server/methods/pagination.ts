import { createHash } from "node:crypto";
import { invalidCursor, staleCursor } from "../errors/protocolErrors.ts";

export { DEFAULT_PAGE_SIZE } from "../served/defaultPageSize.ts";

/** Version of the cursor format; a cursor of another version is rejected like a forged one. */
const CURSOR_VERSION = 1;

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * One page of a listing. The cursor is opaque to clients: base64url of `{v, o, f}`, the format
 * version, the offset of the page, and a fingerprint of the listing it was cut from (its kind
 * and the names in it). A grant or revoke changes the names, so a cursor taken before the
 * change is stale rather than silently skipping or repeating entries.
 */
export function paginate<T extends { name: string }>(
  listing: string,
  entries: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): Page<T> {
  const fingerprint = fingerprintOf(listing, entries);
  const offset = cursor === undefined ? 0 : offsetOf(cursor, fingerprint, entries.length);
  const end = offset + pageSize;
  const items = entries.slice(offset, end);
  return end < entries.length ? { items, nextCursor: encodeCursor(end, fingerprint) } : { items };
}

function fingerprintOf(listing: string, entries: readonly { name: string }[]): string {
  const hash = createHash("sha256").update(listing);
  for (const entry of entries) hash.update("\n").update(entry.name);
  return hash.digest("base64url").slice(0, 16);
}

function encodeCursor(offset: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, o: offset, f: fingerprint })).toString(
    "base64url",
  );
}

function offsetOf(cursor: string, fingerprint: string, length: number): number {
  const decoded = decodeCursor(cursor);
  if (decoded !== undefined && decoded.f !== fingerprint) {
    throw staleCursor(cursor);
  }
  if (decoded === undefined || decoded.o >= length) {
    throw invalidCursor(cursor);
  }
  return decoded.o;
}

function decodeCursor(cursor: string): { o: number; f: string } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { v, o, f } = value as Record<string, unknown>;
    if (
      v !== CURSOR_VERSION ||
      !Number.isSafeInteger(o) ||
      (o as number) <= 0 ||
      typeof f !== "string"
    )
      return undefined;
    return { o: o as number, f };
  } catch {
    return undefined;
  }
}
