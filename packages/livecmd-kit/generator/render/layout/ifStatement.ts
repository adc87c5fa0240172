import { fitsOnLine } from "./layOut.ts";

/**
 * `if (test) statement;` at `indent`: on one line when it fits, else with the statement on the
 * next line, one level in, as prettier lays it out.
 */
export function ifStatement(indent: number, test: string, statement: string): string {
  const line = `if (${test}) ${statement}`;
  if (fitsOnLine(line, indent)) return line;
  return `if (${test})\n${" ".repeat(indent + 2)}${statement}`;
}
