import path from "node:path";
import type { ImportDeclaration, Node, Project, SourceFile } from "ts-morph";
import type { Diagnostic, DiagnosticCode, SourceLocation } from "../model.ts";

/**
 * The folder each project's paths are told relative to (`rootedAt`): held beside the project
 * (ts-morph's Project has no place for it), set by `discoverAndAnalyze` before any path is told.
 */
const roots = new WeakMap<Project, string>();

/**
 * Paths in `project`'s diagnostics and in the AppDecl are told relative to `root` (the folder
 * codegen runs in), so that a reader sees `src/app.ts:12`, and the same bytes on any machine.
 */
export function rootedAt(project: Project, root: string): void {
  roots.set(project, root);
}

/** `file`, a POSIX path relative to the root of its project. */
export function relativeFile(file: SourceFile): string {
  const root = roots.get(file.getProject());
  // A path told against the process's folder would differ by where codegen ran: never guess.
  if (root === undefined)
    throw new Error(`livecmd: ${file.getFilePath()} is in a project no run rooted`);
  return path.relative(root, file.getFilePath()).split(path.sep).join("/");
}

export function locationOf(node: Node): SourceLocation {
  const sourceFile = node.getSourceFile();
  const { line, column } = sourceFile.getLineAndColumnAtPos(node.getStart());
  return { file: relativeFile(sourceFile), line, column };
}

export function diagnosticAt(node: Node, code: DiagnosticCode, message: string): Diagnostic {
  const location = locationOf(node);
  const sourceLine = node.getSourceFile().getFullText().split("\n")[location.line - 1] ?? "";
  return { code, message, location, sourceLine: sourceLine.replace(/\r$/, "") };
}

/** Thrown to stop analysing one command; the diagnostic is collected and the run goes on. */
export class DiagnosticError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

/** Runs pieces of work that may stop at a diagnostic, keeping each one, so one run reports them all. */
export class DiagnosticsCollector {
  readonly diagnostics: Diagnostic[] = [];

  collect<T>(work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof DiagnosticError)) throw error;
      this.diagnostics.push(error.diagnostic);
      return undefined;
    }
  }
}

/** CG009 at `node`: what `what` names comes through `unresolved`, whose module does not resolve. */
export function unresolvedImportError(
  node: Node,
  unresolved: ImportDeclaration,
  what: string,
): DiagnosticError {
  const where = locationOf(unresolved);
  const specifier = unresolved.getModuleSpecifierValue();
  return new DiagnosticError(
    diagnosticAt(
      node,
      "CG009",
      `${what} comes from "${specifier}" (imported at ${where.file}:${where.line}), which does not resolve; codegen resolves imports as the app's tsconfig says, so check its "paths" and "baseUrl" (or pass --tsconfig), or the module's path`,
    ),
  );
}
