import { ANY_TABLE } from "../db/anyTable.ts";
import type { KeyValue, TableChange } from "../db/keyedAccess.ts";
import { cutText } from "../text/cutText.ts";
import { terminalSafe } from "../text/terminalSafe.ts";
import type { ReadSet } from "./readSet.ts";
import { causeOf, causeText } from "./rerunCause.ts";

/** `LIVECMD_DEBUG=live`: each burst's re-runs, one a line with what caused it, on stderr. */
export const debugLive = /(^|,)live(,|$)/.test(process.env.LIVECMD_DEBUG ?? "");

/** Groups named one a line per burst; past them, how many more. */
const DEBUG_GROUPS = 50;

/** What `logCauses` says of a group a burst re-runs. */
export interface RerunGroup {
  readonly command: string;
  /** What its run in progress has read so far, else what its last run read. */
  readonly reads: ReadSet | undefined;
  /** The URIs its subscribers sent. */
  readonly uris: ReadonlySet<string>;
}

/** `LIVECMD_DEBUG=live`: the burst, then each group it re-runs: its command, a URI, the cause. */
export function logCauses(
  changes: readonly TableChange[],
  affected: readonly RerunGroup[],
  valueText: (value: KeyValue) => string,
): void {
  const lines = affected.slice(0, DEBUG_GROUPS).map(({ command, reads, uris }) => {
    const cause = changes.map((change) => reads && causeOf(reads, change)).find(Boolean);
    const [uri] = uris;
    const more = uris.size > 1 ? ` (and ${uris.size - 1} more URIs)` : "";
    const why = cause ? causeText(cause, valueText) : "what it reads";
    // A URI and a key value are a client's text: nothing in them acts on the terminal.
    return `livecmd: live:   ${terminalSafe(`${command} ${cutText(uri ?? "", 200)}${more}: ${why}`)}\n`;
  });
  const rest = affected.length - lines.length;
  process.stderr.write(
    `livecmd: live: ${burstText(changes)} re-runs ${affected.length} ${affected.length === 1 ? "group" : "groups"}:\n${lines.join("")}${rest > 0 ? `livecmd: live:   and ${rest} more\n` : ""}`,
  );
}

/** What a burst changed: `customers (2 row images), orders (any rows)`. */
function burstText(changes: readonly TableChange[]): string {
  const tables = changes.map(({ table, rows }) =>
    table === ANY_TABLE
      ? "every table"
      : rows
        ? `${table} (${rows.length} row ${rows.length === 1 ? "image" : "images"})`
        : `${table} (any rows)`,
  );
  return `a change to ${cutText([...new Set(tables)].join(", "), 300)}`;
}
