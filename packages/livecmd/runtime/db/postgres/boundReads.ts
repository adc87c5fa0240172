import type { KeyValue, TableRead } from "../keyedAccess.ts";
import type { WholeReason } from "../wholeReason.ts";
import type { PlannedRead } from "./planReads.ts";
import { arrayElements, keysOfTexts, sentText } from "./pgKeys.ts";

const UNSURE: WholeReason = {
  kind: "unknown",
  what: "a parameter livecmd cannot be sure how PostgreSQL reads (' 7', a uuid in braces, a Buffer)",
};

/**
 * The rows a statement planned as `reads` reads when bound to `params`: each key source's values
 * as the change feed writes them. A parameter whose value livecmd cannot be sure of makes its
 * table a whole-table read; NULL finds no row, so it adds no value.
 */
export function boundReads(reads: readonly PlannedRead[], params: readonly unknown[]): TableRead[] {
  return reads.map((read) => {
    if (read.column === undefined) return read;
    const values = new Set<KeyValue>();
    for (const source of read.sources) {
      const keys =
        "value" in source
          ? [source.value]
          : keysOfTexts(paramTexts(params[source.param - 1], source.array), read.kind);
      if (!keys) return { table: read.table, reason: UNSURE };
      for (const key of keys) values.add(key);
    }
    return { table: read.table, column: read.column, values: [...values] };
  });
}

/** The texts a parameter compares a key with: its own, an array's elements, none for NULL. */
function paramTexts(value: unknown, array: boolean): readonly (string | null)[] | undefined {
  const text = sentText(value);
  if (text === null) return [];
  if (text === undefined) return undefined;
  return array ? arrayElements(text) : [text];
}
