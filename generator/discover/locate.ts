import path from "node:path";
import type { Node } from "ts-morph";
import type { Diagnostic, DiagnosticCode, SourceLocation } from "../model.ts";

export function locationOf(node: Node, cwd: string): SourceLocation {
  const sourceFile = node.getSourceFile();
  const { line, column } = sourceFile.getLineAndColumnAtPos(node.getStart());
  return { file: toPosixRelative(sourceFile.getFilePath(), cwd), line, column };
}

export function diagnosticAt(node: Node, cwd: string, code: DiagnosticCode, message: string): Diagnostic {
  const location = locationOf(node, cwd);
  const sourceLine = node.getSourceFile().getFullText().split("\n")[location.line - 1] ?? "";
  return { code, message, location, sourceLine: sourceLine.replace(/\r$/, "") };
}

export function toPosixRelative(file: string, cwd: string): string {
  return path.relative(cwd, file).split(path.sep).join("/");
}

/** Thrown to stop analysing one command; the diagnostic is collected and the run goes on. */
export class DiagnosticError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}
