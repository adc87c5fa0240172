import { isKeyColumn } from "../keyColumns.ts";
import { LIVECMD_SCHEMA } from "../livecmdSchema.ts";
import type { PgQueryable } from "../pgLibrary.ts";
import { FILTER_TYPES } from "../plan/pgFilters.ts";
import { ROOT_OF } from "./changeFeed.ts";
import type { ImagedRelation } from "./walChanges.ts";
import type { WalRelation } from "./walMessage.ts";

/**
 * What the catalog says of a relation the stream names, as the trigger feed reads it at each
 * firing: the table its changes are changes to, its key columns, its columns filters compare.
 */
const RELATION = /* sql */ `
SELECT n.nspname = '${LIVECMD_SCHEMA}' AS own,
       coalesce(${ROOT_OF}(c.oid), c.relname)::text AS root,
       ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE ${isKeyColumn("c.oid")}) AS keys,
       ARRAY(SELECT a.attname::text FROM pg_attribute a
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                AND a.atttypid IN (${FILTER_TYPES.map((name) => `'${name}'::regtype`).join(", ")})) AS filters
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.oid = $1::oid`;

interface RelationRow {
  own: boolean;
  root: string;
  keys: string[];
  filters: string[];
}

/**
 * The relations of one stream, looked up in the catalog when the stream sends each (first, and
 * again after DDL changed it). A relation dropped since is its own table, with no key or filter
 * column: every read of it counts its changes.
 */
export class WalRelations {
  readonly #known = new Map<number, ImagedRelation>();

  constructor(private readonly db: PgQueryable) {}

  async learn(relation: WalRelation): Promise<void> {
    const { rows } = await this.db.query({
      text: RELATION,
      values: [relation.relationOid],
    });
    const row = rows[0] as RelationRow | undefined;
    this.#known.set(relation.relationOid, {
      table: row?.own ? undefined : (row?.root ?? relation.name),
      keys: new Set(row?.keys),
      filters: new Set(row?.filters),
      types: new Map(relation.columns.map(({ name, typeOid }) => [name, typeOid])),
    });
  }

  /**
   * The key columns of every relation known whose changes are `table`'s (a partitioned table's
   * partitions may be keyed differently); undefined when none is known.
   */
  keysOf(table: string): ReadonlySet<string> | undefined {
    let keys: Set<string> | undefined;
    for (const relation of this.#known.values())
      if (relation.table === table) for (const key of relation.keys) (keys ??= new Set()).add(key);
    return keys;
  }

  of(relation: WalRelation): ImagedRelation {
    return (
      this.#known.get(relation.relationOid) ?? {
        table: relation.name,
        keys: new Set(),
        filters: new Set(),
        types: new Map(),
      }
    );
  }
}
