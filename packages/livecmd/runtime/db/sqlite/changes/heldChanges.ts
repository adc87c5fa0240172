import { ANY_TABLE } from "../../anyTable.ts";
import { anyRowsOf, type RowImage, type TableChange } from "../../keyedAccess.ts";

/**
 * What one read of the change log found, one change per table, in the order tables were first
 * met: the row images of each, up to `limit` of them in all. Past the limit the change is too
 * large to hold, and becomes any row of every table it names (those found so far and those found
 * next), so that a write of a million rows costs a name per table, not a million images. Adding
 * a row is constant time, so reading N entries costs O(N).
 */
export class HeldChanges {
  /** Each table's row images; undefined once any of its rows counts as changed. */
  readonly #rows = new Map<string, RowImage[] | undefined>();
  #held = 0;
  #full = false;
  #everyTable = false;

  constructor(private readonly limit: number) {}

  /** Whether row images are no longer held: from here on only which tables changed counts. */
  get full(): boolean {
    return this.#full || this.#everyTable;
  }

  /** Whether every table counts as changed: nothing read after this can add to it. */
  get everyTable(): boolean {
    return this.#everyTable;
  }

  row(table: string, image: RowImage): void {
    if (this.full) return this.anyRow(table);
    const rows = this.#rows.get(table);
    if (rows === undefined && this.#rows.has(table)) return;
    if (this.#held === this.limit) {
      this.#overflow();
      return this.anyRow(table);
    }
    this.#held += 1;
    if (rows) rows.push(image);
    else this.#rows.set(table, [image]);
  }

  /** A change to rows of `table` that are not known (an entry too large, or unreadable). */
  anyRow(table: string): void {
    if (this.#everyTable) return;
    this.#held -= this.#rows.get(table)?.length ?? 0;
    this.#rows.set(table, undefined);
  }

  /** Every table counts as changed (entries missing, or one whose table cannot be read). */
  anyTable(): void {
    this.#everyTable = true;
    this.#rows.clear();
    this.#held = 0;
  }

  changes(): TableChange[] {
    if (this.#everyTable) return [anyRowsOf(ANY_TABLE)];
    return [...this.#rows].map(([table, rows]) => (rows ? { table, rows } : anyRowsOf(table)));
  }

  #overflow(): void {
    this.#full = true;
    for (const table of this.#rows.keys()) this.#rows.set(table, undefined);
    this.#held = 0;
  }
}
