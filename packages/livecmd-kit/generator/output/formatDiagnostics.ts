import type { Diagnostic } from "../model.ts";

/** `file:line:col - error CODE: message`, then the source line with a caret under the column. */
export function formatDiagnostics(diagnostics: Diagnostic[]): string {
  return (
    diagnostics.map(formatDiagnostic).join("\n\n") +
    `\n\n${diagnostics.length} error(s); nothing was written.\n`
  );
}

function formatDiagnostic({ code, message, location, sourceLine }: Diagnostic): string {
  const gutter = String(location.line);
  const caret = " ".repeat(gutter.length + 3 + location.column - 1) + "^";
  return `${location.file}:${location.line}:${location.column} - error ${code}: ${message}\n\n${gutter} | ${sourceLine}\n${caret}`;
}
