import type { CalledName, PlanCalls } from "./planCalls.ts";
import type { PgClient } from "../pgLibrary.ts";

/** Catalog functions that run SQL given as text: they may read any table. */
const SQL_RUNNING_CATALOG_FUNCTIONS = new Set([
  "cursor_to_xml",
  "cursor_to_xmlschema",
  "database_to_xml",
  "database_to_xml_and_xmlschema",
  "database_to_xmlschema",
  "query_to_xml",
  "query_to_xml_and_xmlschema",
  "query_to_xmlschema",
  "schema_to_xml",
  "schema_to_xml_and_xmlschema",
  "schema_to_xmlschema",
  "table_to_xml",
  "table_to_xml_and_xmlschema",
  "table_to_xmlschema",
  "ts_rewrite",
  "ts_stat",
]);

/** A function outside the catalog that a plan may call. */
export interface CalledFunction {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  readonly language: string;
  /** Its body as a statement with `$n` parameters, when it is a SQL function of one statement. */
  readonly statement: string | undefined;
  readonly argTypes: readonly string[];
}

/** What the calls of a plan read: the functions whose bodies to plan, or why every table. */
export type CallsRead =
  { readonly bodies: readonly CalledFunction[] } | { readonly unknown: string };

/**
 * What the functions a plan calls may read. A function outside `pg_catalog` and
 * `information_schema` (by any name the plan calls, or behind any operator it uses) may read
 * any table, unless the app says it reads none (`pure`, by `name` or `schema.name`) or it is a
 * SQL function of one statement, whose body the caller plans in its turn. Catalog functions read
 * no table of the app, but those that run SQL given as text.
 */
export async function callsRead(
  client: PgClient,
  calls: PlanCalls,
  pure: ReadonlySet<string>,
): Promise<CallsRead> {
  const runsSql = calls.functions.find(
    (called) =>
      (called.schema ?? "pg_catalog") === "pg_catalog" &&
      SQL_RUNNING_CATALOG_FUNCTIONS.has(called.name),
  );
  if (runsSql) return { unknown: `it calls ${runsSql.name}(), which runs SQL given as text` };
  const bodies: CalledFunction[] = [];
  for (const called of await calledFunctions(client, calls)) {
    if (pure.has(called.name) || pure.has(`${called.schema}.${called.name}`)) continue;
    if (called.statement === undefined)
      return {
        unknown: `it calls ${called.schema}.${called.name}(), a ${called.language} function whose reads no plan shows; if it reads no table, name it in postgres(url, { pureFunctions })`,
      };
    bodies.push(called);
  }
  return { bodies };
}

interface FunctionRow {
  oid: number;
  schema: string;
  name: string;
  language: string;
  source: string;
  atomic: string | null;
  argTypes: string[];
  argNames: string[] | null;
  argModes: string[] | null;
}

/** The functions outside the catalog that the calls may stand for (any overload of a name). */
async function calledFunctions(client: PgClient, calls: PlanCalls): Promise<CalledFunction[]> {
  if (calls.functions.length === 0 && calls.operators.length === 0) return [];
  const { rows } = await client.query({
    text: /* sql */ `
      SELECT p.oid::int AS oid, n.nspname AS schema, p.proname AS name, l.lanname AS language,
             p.prosrc AS source,
             CASE WHEN p.prosqlbody IS NOT NULL THEN pg_get_function_sqlbody(p.oid) END AS atomic,
             array_to_json(p.proargtypes::regtype[]::text[]) AS "argTypes",
             array_to_json(p.proargnames) AS "argNames",
             array_to_json(p.proargmodes::text[]) AS "argModes"
        FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        JOIN pg_language l ON l.oid = p.prolang
       WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
         AND (p.proname = ANY ($1::text[])
              OR p.oid IN (SELECT o.oprcode::oid FROM pg_operator o WHERE o.oprname = ANY ($2::text[])))
       ORDER BY n.nspname, p.proname, p.oid`,
    values: [calls.functions.map(({ name }) => name), calls.operators],
  });
  return (rows as FunctionRow[])
    .filter((row) => calledBy(row, calls))
    .map((row) => ({
      oid: row.oid,
      schema: row.schema,
      name: row.name,
      language: row.language,
      statement: row.language === "sql" ? bodyStatement(row) : undefined,
      argTypes: row.argTypes,
    }));
}

/** Whether a row the query found is called: by an operator, or by its name in its schema. */
function calledBy(row: FunctionRow, calls: PlanCalls): boolean {
  const byName = calls.functions.filter(({ name }) => name === row.name);
  return (
    byName.length === 0 ||
    byName.some(({ schema }: CalledName) => schema === undefined || schema === row.schema)
  );
}

/**
 * A SQL function's body as one statement with `$n` for its arguments (named ones renamed), or
 * undefined when it has more than one statement (or a form livecmd does not read): then it may
 * read any table. Renaming an argument where a column of that name was meant changes nothing
 * of which tables the statement reads, and a statement broken by it fails to plan (every table).
 */
function bodyStatement(row: FunctionRow): string | undefined {
  const body = (row.atomic ?? row.source)
    .trim()
    .replace(/^RETURN\b/, "SELECT")
    .replace(/^BEGIN ATOMIC\b([\s\S]*)\bEND$/, "$1");
  const statement = body.trim().replace(/;\s*$/, "");
  if (topLevelSemicolon(statement)) return undefined;
  const inputNames = (row.argNames ?? []).filter((_, i) => {
    const mode = row.argModes?.[i] ?? "i";
    return mode === "i" || mode === "b" || mode === "v";
  });
  return inputNames.reduce(
    (text, name, i) => (name ? renamed(text, row.name, name, i + 1) : text),
    statement,
  );
}

function topLevelSemicolon(statement: string): boolean {
  return statement
    .replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\w*)\$[\s\S]*?\$\1\$/g, "")
    .includes(";");
}

/** `name` or `fn.name`, outside quotes and not after a dot, as `$index`. */
function renamed(text: string, fn: string, name: string, index: number): string {
  const pattern = new RegExp(
    `'(?:[^']|'')*'|"(?:[^"]|"")*"|(?<![.\\w$])(?:${escaped(fn)}\\.)?${escaped(name)}(?![\\w$])`,
    "g",
  );
  return text.replace(pattern, (found) => (/^['"]/.test(found) ? found : `$${index}`));
}

function escaped(identifier: string): string {
  return identifier.replace(/[$]/g, "\\$");
}

/** The names of `pure` (`name` or `schema.name`) that are no function of the database. */
export async function unknownFunctions(
  client: Pick<PgClient, "query">,
  pure: ReadonlySet<string>,
): Promise<string[]> {
  if (pure.size === 0) return [];
  const { rows } = await client.query({
    text: /* sql */ `SELECT n.nspname AS schema, p.proname AS name
                       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                      WHERE p.proname = ANY ($1::text[])`,
    values: [[...pure].map((name) => name.slice(name.lastIndexOf(".") + 1))],
  });
  const known = new Set(
    (rows as { schema: string; name: string }[]).flatMap(({ schema, name }) => [
      name,
      `${schema}.${name}`,
    ]),
  );
  return [...pure].filter((name) => !known.has(name));
}
