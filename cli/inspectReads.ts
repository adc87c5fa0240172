import type { App } from "../runtime/model/app.ts";
import { Origin } from "../runtime/model/context.ts";
import { ANY_TABLE } from "../runtime/db/anyTable.ts";
import type { TableRead } from "../runtime/db/keyedAccess.ts";
import { SqliteDatabase } from "../runtime/db/sqlite/sqliteDatabase.ts";
import { keyText } from "../runtime/db/sqlite/sqliteKeys.ts";
import { ReadSet } from "../runtime/live/readSet.ts";
import { resolveUri } from "../runtime/server/resolveUri.ts";
import { ServedApp } from "../runtime/server/servedApp.ts";
import { InputError } from "./inputError.ts";

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
  const served = new ServedApp(app, { allowStale: true });
  const valueText =
    app.db instanceof SqliteDatabase ? keyText : (key: string) => JSON.stringify(key);
  for (const uri of uris) {
    const resolved = resolveOrRefuse(served, uri);
    const reads: TableRead[] = [];
    let readsPrincipal = false;
    // A read that throws (a row not there yet) still read what it read: a watch of it depends
    // on that, to hear when the row comes.
    const failure = await app
      .run(resolved.entry.name, resolved.args, {
        origin: Origin.Agent,
        observer: {
          read: (each) => reads.push(...each),
          sawPrincipal: () => (readsPrincipal = true),
        },
      })
      .then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    log(`${uri}: ${resolved.entry.name}(${argumentsText(resolved.args)})`);
    if (failure !== undefined)
      log(`  the read failed (${failure}); until it succeeds, a watch of it depends on:`);
    for (const line of readLines(reads, valueText)) log(`  ${line}`);
    log(
      readsPrincipal
        ? "  reads ctx.auth: one run per principal"
        : "  never reads ctx.auth: one run serves every principal",
    );
  }
  served.close();
}

/** The handler's arguments as a call would pass them, optional ones left out at the end. */
function argumentsText(args: readonly unknown[]): string {
  const given = [...args];
  while (given.length > 0 && given.at(-1) === undefined) given.pop();
  return given.map((arg) => JSON.stringify(arg) ?? "undefined").join(", ");
}

function resolveOrRefuse(served: ServedApp, uri: string): ReturnType<typeof resolveUri> {
  try {
    return resolveUri(served, uri, undefined);
  } catch (error) {
    throw new InputError(`--reads ${uri}: ${(error as Error).message}`);
  }
}

/**
 * One line per table, by name: `customers  by rowid: 1` or `orders  whole table`, and why a
 * whole table is not all there is to it (a foreign table); or one line when it is every table.
 */
export function readLines(
  runReads: readonly TableRead[],
  valueText: (key: string) => string,
): string[] {
  const reads = new ReadSet("rows");
  reads.add(runReads);
  const because = new Map<string, string>();
  for (const read of runReads)
    if (read.column === undefined && read.because) because.set(read.table, read.because);
  if (reads.whole.has(ANY_TABLE))
    return [
      `every table: every write re-runs this (${because.get(ANY_TABLE) ?? "which tables it reads cannot be told"})`,
    ];
  const tables = [...new Set([...reads.whole, ...reads.keyed.keys()])].sort();
  if (tables.length === 0) return ["reads no table: no write re-runs it"];
  const width = Math.max(...tables.map((table) => table.length));
  return tables.map((table) => {
    const name = table.padEnd(width);
    const why = because.get(table);
    if (why) return `${name}  whole table, ${why}`;
    if (reads.whole.has(table)) return `${name}  whole table: every write to it re-runs this`;
    const keys = [...reads.keyed.get(table)!].map(
      ([column, values]) => `${column} = ${[...values].map(valueText).join(", ")}`,
    );
    return `${name}  by ${keys.join("; ")}`;
  });
}
