import type { App } from "livecmd";
import {
  ANY_TABLE,
  engineOf,
  keyValueText,
  NO_DATABASE,
  ReadSet,
  readInspector,
  UNSEEN_FIX,
  wholeReasonText,
  type TableRead,
} from "livecmd/internal";
import { InputError } from "livecmd/cli";

/**
 * `livecmd inspect --reads URI`: runs the read of each URI once, as an agent would, and prints
 * what a subscription to it would depend on: per table, the keys it looked rows up by or the
 * whole table, and whether its run reads `ctx.auth`. So an author sees why a URI is costly to
 * watch (a whole table re-runs it on every write to the table).
 */
export async function inspectReads(app: App, uris: readonly string[], log: (text: string) => void) {
  await app.ready().catch((error: Error) => {
    throw new InputError(
      `app "${app.name}" cannot open its database: ${error.message.replace(/^livecmd: /, "")}`,
    );
  });
  // A refusal to serve the app (no generated catalog) is the app's to fix, in the runtime's words.
  const inspector = await readInspector(app).catch((error: Error) => {
    throw new InputError(error.message);
  });
  for (const uri of uris) {
    const { command, args, reads, unseen, readsPrincipal, failure } = await inspector
      .read(uri)
      .catch((error: Error) => {
        throw new InputError(`--reads ${uri}: ${error.message}`);
      });
    log(`${uri}: ${command}(${argumentsText(args)})`);
    if (failure !== undefined)
      log(`  the read failed (${failure}); until it succeeds, a watch of it depends on:`);
    if (unseen) log(`  ${unseenText(app)}`);
    else for (const line of readLines(reads, keyValueText(app.db))) log(`  ${line}`);
    log(
      readsPrincipal
        ? "  reads ctx.auth: one run per principal"
        : "  never reads ctx.auth: one run serves every principal",
    );
  }
  inspector.close();
}

/** A run that made no statement livecmd saw (`ReadSet.unseen`): what re-runs a watch of it. */
export function unseenText(app: App): string {
  return engineOf(app).hasDatabase
    ? `reads nothing livecmd can see: every write re-runs a watch of it; ${UNSEEN_FIX}`
    : `reads nothing livecmd can see: ${NO_DATABASE}`;
}

/** The handler's arguments as a call would pass them, optional ones left out at the end. */
function argumentsText(args: readonly unknown[]): string {
  const given = [...args];
  while (given.length > 0 && given.at(-1) === undefined) given.pop();
  return given.map((arg) => JSON.stringify(arg) ?? "undefined").join(", ");
}

/** How many of a key's values a line shows (a lookup may hold a thousand). */
const SHOWN_VALUES = 10;

/**
 * One line per table, by name: `customers  by rowid = 1`, `patients  by id = 3, 5 (looked up
 * from appointments.patient_id)`, `orders  where total > 10000`, or `orders  whole table (a
 * range on placed_on)`: why the plan reads it whole, or why a whole table is not all there is to
 * it (a foreign table); or one line when it is every table.
 */
export function readLines(
  runReads: readonly TableRead[],
  valueText: (key: string) => string,
): string[] {
  const reads = new ReadSet("rows");
  reads.add(runReads);
  const because = new Map<string, string>();
  for (const read of runReads)
    if (read.column === undefined && read.filter === undefined && read.because)
      because.set(read.table, read.because);
  if (reads.whole.has(ANY_TABLE))
    return [
      `every table: every write re-runs this (${because.get(ANY_TABLE) ?? "which tables it reads cannot be told"})`,
    ];
  const tables = [
    ...new Set([...reads.whole, ...reads.keyed.keys(), ...reads.filtered.keys()]),
  ].sort();
  if (tables.length === 0) return ["reads no table: no write re-runs it"];
  const width = Math.max(...tables.map((table) => table.length));
  return tables.map((table) => {
    const name = table.padEnd(width);
    const why = because.get(table);
    if (why) return `${name}  whole table, ${why}`;
    if (reads.whole.has(table)) {
      const reason = reads.reasons.get(table);
      return `${name}  whole table${reason ? ` (${wholeReasonText(reason)})` : ""}: every write to it re-runs this`;
    }
    const lookedUp = reads.lookedUp.get(table);
    const keys = [...(reads.keyed.get(table) ?? [])].map(([column, values]) => {
      const from = lookedUp?.get(column);
      const source = from ? ` (looked up from ${[...from].join(", ")})` : "";
      const shown = [...values].slice(0, SHOWN_VALUES).map(valueText);
      const more = values.size > SHOWN_VALUES ? [`… ${values.size - SHOWN_VALUES} more`] : [];
      return `by ${column} = ${values.size === 0 ? "none" : [...shown, ...more].join(", ")}${source}`;
    });
    const filters = (reads.filtered.get(table) ?? []).map((filter) => `where ${filter.text}`);
    return `${name}  ${[...keys, ...filters].join("; ")}`;
  });
}
