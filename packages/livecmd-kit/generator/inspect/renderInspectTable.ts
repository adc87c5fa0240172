import type { CommandEntry, ToolAnnotations } from "livecmd/internal";

const COLUMNS = [
  "command",
  "kind",
  "granted",
  "annotations",
  "resource",
  "template, or why none",
] as const;

/** The last column is not padded: it holds sentences. */
const LAST = COLUMNS.length - 1;

/** One row per command, as plain text columns: what an agent gets from each, and why. */
export function renderInspectTable(commands: CommandEntry[]): string {
  const rows = commands.map((command) => [
    command.name,
    kindOf(command),
    command.granted ? "yes" : "no",
    hintsText(command.annotations),
    command.resource ?? "-",
    command.template ?? (command.reason ? `none: ${command.reason}` : "-"),
  ]);
  const widths = COLUMNS.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (column === LAST ? 0 : row[column]!.length))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === LAST ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(COLUMNS), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join(
    "\n",
  );
}

function kindOf(command: CommandEntry): string {
  if (command.confirm) return command.live ? "live, confirm" : "confirm";
  return command.live ? "live" : "write";
}

/** The hints that are true, as a host reads them (`readOnly, idempotent`); `-` for none. */
export function hintsText(annotations: ToolAnnotations | undefined): string {
  const hints = Object.entries(annotations ?? {})
    .filter(([key, value]) => key.endsWith("Hint") && value === true)
    .map(([key]) => key.slice(0, -"Hint".length));
  return hints.length > 0 ? hints.join(", ") : "-";
}
