import type { App } from "livecmd";
import { InputError } from "livecmd/cli";
import {
  ANY_TABLE,
  byCodeUnit,
  ReadSet,
  readInspector,
  wholeReasonText,
  type ReadInspector,
  type TableRead,
} from "livecmd/internal";
import { unseenText } from "./inspectReads.ts";

const COLUMNS = ["command", "read as", "cost: a write re-runs a watch of it when it changes"];

/**
 * `livecmd inspect --cost`: what watching each template costs, told by reading it once on the
 * app's database as an agent would, with the values its docs give as examples: the keys it looks
 * rows up by (a write re-runs it only for those rows; a join's keys are looked up off other
 * rows), the filters it keeps rows by (only a row they keep before or after a write re-runs it),
 * or the tables it reads whole and why the plan reads them so (every write to them re-runs it).
 * The database is needed: what a statement reads is its plan on the app's own schema, which no
 * source text tells.
 */
export async function inspectCost(app: App, log: (text: string) => void): Promise<void> {
  await app.ready().catch((error: Error) => {
    throw new InputError(
      `--cost reads each template on the app's database, and app "${app.name}" cannot open it: ${error.message.replace(/^livecmd: /, "")}`,
    );
  });
  const inspector = await readInspector(app).catch((error: Error) => {
    throw new InputError(error.message);
  });
  try {
    const rows = await costRows(app, inspector);
    log(`\ncost of watching each template (read once on the app's database, with its examples):\n`);
    log(table(rows));
  } finally {
    inspector.close();
  }
}

async function costRows(app: App, inspector: ReadInspector): Promise<string[][]> {
  const rows: string[][] = [];
  for (const { command, uri, missing } of inspector.watchable()) {
    if (uri === undefined) {
      rows.push([
        command,
        "-",
        `unknown: no example of ${missing.join(", ")}; write one in its @param or field doc (e.g. 1) or an @example tag`,
      ]);
      continue;
    }
    const { reads, unseen, readsPrincipal, failure } = await inspector.read(uri);
    const cost = unseen ? unseenText(app) : costText(reads);
    const notes = [
      ...(failure === undefined ? [] : [`the read failed: ${failure}`]),
      ...(readsPrincipal ? ["one run per principal (it reads ctx.auth)"] : []),
    ];
    rows.push([command, uri, notes.length > 0 ? `${cost}; ${notes.join("; ")}` : cost]);
  }
  return rows;
}

/**
 * `by key: customers.rowid, patients.id (looked up from appointments.patient_id)`, `by filter:
 * orders where total > 10000`, `whole customers (LIKE on name)`, `every table (...)`.
 */
function costText(runReads: readonly TableRead[]): string {
  const reads = new ReadSet("rows");
  reads.add(runReads);
  const why = (table: string) => {
    const reason = reads.reasons.get(table);
    return reason ? ` (${wholeReasonText(reason)})` : "";
  };
  if (reads.whole.has(ANY_TABLE)) return `every table${why(ANY_TABLE)}`;
  const whole = [...reads.whole].sort(byCodeUnit).map((table) => `whole ${table}${why(table)}`);
  const keyed = [...reads.keyed]
    .sort(([a], [b]) => byCodeUnit(a, b))
    .flatMap(([table, columns]) =>
      [...columns.keys()].map((column) => {
        const from = reads.lookedUp.get(table)?.get(column);
        return `${table}.${column}${from ? ` (looked up from ${[...from].join(", ")})` : ""}`;
      }),
    );
  const filtered = [...reads.filtered]
    .sort(([a], [b]) => byCodeUnit(a, b))
    .flatMap(([table, filters]) => filters.map((filter) => `${table} where ${filter.text}`));
  const parts = [
    ...whole,
    ...(keyed.length > 0 ? [`by key: ${keyed.join(", ")}`] : []),
    ...(filtered.length > 0 ? [`by filter: ${filtered.join(", ")}`] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : "reads no table: no write re-runs it";
}

function table(rows: readonly string[][]): string {
  const widths = COLUMNS.slice(0, -1).map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]!) : cell))
      .join("  ")
      .trimEnd();
  return [
    line(COLUMNS),
    line([...widths.map((width) => "-".repeat(width)), "-".repeat(COLUMNS.at(-1)!.length)]),
    ...rows.map(line),
  ].join("\n");
}
