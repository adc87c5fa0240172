/** The column limit the generated modules are laid out for (prettier's `printWidth`). */
export const PRINT_WIDTH = 100;

/**
 * `if (test) statement;` at `indent`: on one line when it fits, else with the statement on the
 * next line, one level in, as prettier lays it out.
 */
export function ifStatement(indent: number, test: string, statement: string): string {
  const line = `if (${test}) ${statement}`;
  if (indent + line.length <= PRINT_WIDTH) return line;
  return `if (${test})\n${" ".repeat(indent + 2)}${statement}`;
}
