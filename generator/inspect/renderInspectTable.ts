import type { CommandEntry } from "../../runtime/catalog.ts";

const COLUMNS = ["command", "kind", "granted", "resource", "template, or why none"] as const;

/** One row per command, as plain text columns: what an agent gets from each, and why. */
export function renderInspectTable(commands: CommandEntry[]): string {
  const rows = commands.map((command) => [
    command.name,
    kindOf(command),
    command.granted ? "yes" : "no",
    command.resource ?? "-",
    command.template ?? (command.reason ? `none: ${command.reason}` : "-"),
  ]);
  const widths = COLUMNS.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (column === 4 ? 0 : row[column]!.length))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 4 ? cell : cell.padEnd(widths[column]!)))
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
