import path from "node:path";
import type { ImportDeclaration, Node } from "ts-morph";
import type { Diagnostic, DiagnosticCode, SourceLocation } from "../model.ts";

export function locationOf(node: Node, cwd: string): SourceLocation {
  const sourceFile = node.getSourceFile();
  const { line, column } = sourceFile.getLineAndColumnAtPos(node.getStart());
  return { file: toPosixRelative(sourceFile.getFilePath(), cwd), line, column };
}

export function diagnosticAt(
  node: Node,
  cwd: string,
  code: DiagnosticCode,
  message: string,
): Diagnostic {
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

/** CG009 at `node`: what `what` names comes through `unresolved`, whose module does not resolve. */
export function unresolvedImportError(
  node: Node,
  unresolved: ImportDeclaration,
  cwd: string,
  what: string,
): DiagnosticError {
  const where = locationOf(unresolved, cwd);
  const specifier = unresolved.getModuleSpecifierValue();
  return new DiagnosticError(
    diagnosticAt(
      node,
      cwd,
      "CG009",
      `${what} comes from "${specifier}" (imported at ${where.file}:${where.line}), which does not resolve; codegen resolves imports as the app's tsconfig says, so check its "paths" and "baseUrl" (or pass --tsconfig), or the module's path`,
    ),
  );
}
