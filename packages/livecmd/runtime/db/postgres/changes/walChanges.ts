import type { RowImage } from "../../keyedAccess.ts";
import { IMAGE_VALUE_LIMIT, IMAGES_READ, PAYLOAD_LIMIT } from "./changeFeed.ts";
import type { WalTuple } from "./walMessage.ts";

/** The prefix of the logical messages livecmd emits (DDL heard, a caught-up marker). */
export const MESSAGE_PREFIX = "livecmd";

/** The boolean type's oid: pgoutput writes `t`/`f`, a row image (`to_jsonb`) `true`/`false`. */
const BOOLEAN_OID = 16;

/** A relation of the stream as livecmd images it: the table it changes as, and its columns. */
export interface ImagedRelation {
  /** The top of its partition or inheritance tree (`ROOT_OF`); undefined: livecmd's own table. */
  readonly table: string | undefined;
  /** Its key columns (`keyColumns.ts`), carried in every image. */
  readonly keys: ReadonlySet<string>;
  /** Its columns of the types filters compare, carried when short. */
  readonly filters: ReadonlySet<string>;
  /** The oid of each column's type, by name. */
  readonly types: ReadonlyMap<string, number>;
}

/**
 * The changes of one transaction, per table, as the trigger feed's payloads write them
 * (`changePayload.ts` reads both): the images of every row version it wrote, its key and
 * short filter columns; its key columns alone when those do not fit a payload; the table alone
 * when neither does, or on TRUNCATE.
 */
export class WalTransaction {
  /** The images written of each table: whole, and of their key columns alone. */
  readonly #images = new Map<string, { whole: RowImage[]; keys: RowImage[] }>();
  readonly #wholeTables = new Set<string>();
  /** Payloads said as they are: livecmd's logical messages, in the order they came. */
  readonly #messages: string[] = [];

  /** A row version written: an insert's new row, an update's old and new, a delete's old. */
  wrote(relation: ImagedRelation, ...tuples: (WalTuple | null | undefined)[]): void {
    if (relation.table === undefined) return;
    const images = this.#images.get(relation.table) ?? { whole: [], keys: [] };
    this.#images.set(relation.table, images);
    for (const tuple of tuples) {
      if (!tuple) continue;
      const image = imageOf(relation, tuple);
      images.whole.push(image);
      images.keys.push(
        Object.fromEntries(Object.entries(image).filter(([column]) => relation.keys.has(column))),
      );
    }
  }

  truncated(relation: ImagedRelation): void {
    if (relation.table !== undefined) this.#wholeTables.add(relation.table);
  }

  said(message: string): void {
    this.#messages.push(message);
  }

  /** The payloads to notify, one per table changed, then the messages. */
  payloads(): string[] {
    const payloads: string[] = [];
    for (const [table, images] of this.#images)
      if (!this.#wholeTables.has(table)) payloads.push(payloadOf(table, images.whole, images.keys));
    for (const table of this.#wholeTables) payloads.push(JSON.stringify({ table }));
    return [...payloads, ...this.#messages];
  }
}

/** An image of `tuple`: its key columns, and its short filter columns (booleans as JSON writes them). */
function imageOf(relation: ImagedRelation, tuple: WalTuple): RowImage {
  const image: Record<string, string | null> = {};
  for (const [column, value] of Object.entries(tuple)) {
    if (value === undefined) continue;
    const key = relation.keys.has(column);
    if (!key && !relation.filters.has(column)) continue;
    if (!key && value !== null && Buffer.byteLength(value) > IMAGE_VALUE_LIMIT) continue;
    image[column] =
      value !== null && relation.types.get(column) === BOOLEAN_OID ? String(value === "t") : value;
  }
  return image;
}

/** The trigger feed's payload of `table`'s images, or of their key columns, or of the table. */
function payloadOf(table: string, whole: readonly RowImage[], keys: readonly RowImage[]): string {
  if (whole.length >= IMAGES_READ) return JSON.stringify({ table });
  for (const rows of [whole, keys]) {
    const payload = JSON.stringify({ table, rows });
    if (Buffer.byteLength(payload) <= PAYLOAD_LIMIT) return payload;
  }
  return JSON.stringify({ table });
}
