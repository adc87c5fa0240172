import type { Report } from "./report.ts";
import { plural } from "./wording.ts";

const HEADER = { step: "step", era: "era", status: "status", detail: "detail" };

/**
 * The report as a table for a terminal: one row a step, the fix of a warn or fail on the line
 * under its detail, then the totals. Columns are as wide as their longest cell; the detail is
 * last and never cut.
 */
export function renderTable(report: Report): string {
  const rows = [HEADER, ...report.steps];
  const stepWidth = Math.max(...rows.map((row) => row.step.length));
  const eraWidth = Math.max(...rows.map((row) => row.era.length));
  const statusWidth = Math.max(...rows.map((row) => row.status.length));
  const indent = " ".repeat(stepWidth + eraWidth + statusWidth + 6);
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(
      `${row.step.padEnd(stepWidth)}  ${row.era.padEnd(eraWidth)}  ${row.status.padEnd(statusWidth)}  ${row.detail}`,
    );
    if ("fix" in row && row.fix !== undefined) lines.push(`${indent}fix: ${row.fix}`);
  }
  const { ok, warn, fail } = report.summary;
  lines.push(
    "",
    `${report.target}: ${plural(report.steps.length, "step")}, ${ok} ok, ${warn} warn, ${fail} fail`,
  );
  return `${lines.join("\n")}\n`;
}
