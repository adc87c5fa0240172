import path from "node:path";
import type { Project } from "ts-morph";
import { analyzeCommand } from "./analyzeCommand.ts";
import { variablesTypeName } from "../plan/naming.ts";
import { byCodeUnit, type AppDecl, type CommandDecl, type Diagnostic } from "../model.ts";
import { findApp, type AppSyntax } from "../discover/findApp.ts";
import { loadApp } from "../discover/createProject.ts";
import {
  diagnosticAt,
  DiagnosticError,
  toPosixRelative,
  unresolvedImportError,
} from "../discover/locate.ts";
import { unresolvedImport } from "../discover/resolveDeclaration.ts";
import { readCommand, type CommandSyntax } from "../discover/readCommand.ts";

export type Analysis = { ok: true; app: AppDecl } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Reads the app module and every command it registers. Problems are collected, not thrown,
 * so one run reports all of them.
 */
export function analyzeApp(project: Project, appFile: string, cwd: string): Analysis {
  const diagnostics: Diagnostic[] = [];
  const collect = <T>(work: () => T): T | undefined => {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof DiagnosticError)) throw error;
      diagnostics.push(error.diagnostic);
      return undefined;
    }
  };
  const syntax = collect(() => findApp(loadApp(project, path.resolve(cwd, appFile)), cwd));
  if (!syntax) return { ok: false, diagnostics };

  const commands = syntax.commands.flatMap(({ key, declaration }) => {
    const command = collect(() => readCommand(key, declaration, cwd));
    return command ? [command] : [];
  });
  const granted = new Set(
    syntax.grant.flatMap(
      (element) => collect(() => [grantedCommand(element, commands, cwd)]) ?? [],
    ),
  );
  const decls = commands.flatMap((command) => {
    const decl = collect(() => analyzeCommand(command, granted.has(command), cwd));
    return decl ? [decl] : [];
  });
  diagnostics.push(...duplicateNames(commands, cwd));
  if (diagnostics.length > 0) return { ok: false, diagnostics: sortDiagnostics(diagnostics) };
  return {
    ok: true,
    app: {
      name: syntax.name,
      file: toPosixRelative(path.resolve(cwd, appFile), cwd),
      commands: sortByName(decls),
    },
  };
}

function grantedCommand(
  { node, declaration }: AppSyntax["grant"][number],
  commands: CommandSyntax[],
  cwd: string,
): CommandSyntax {
  const command = commands.find((candidate) => candidate.declaration === declaration);
  if (command) return command;
  const unresolved = unresolvedImport(node);
  if (unresolved)
    throw unresolvedImportError(
      node,
      unresolved,
      cwd,
      `agent.grant lists "${node.getText()}", which`,
    );
  throw new DiagnosticError(
    diagnosticAt(
      node,
      cwd,
      "CG006",
      `agent.grant lists "${node.getText()}", which is not one of this app's commands; grant only commands registered in defineApp({ commands })`,
    ),
  );
}

/** Names must be unique, and so must the type names generated from them (`Orders` and `orders`). */
function duplicateNames(commands: CommandSyntax[], cwd: string): Diagnostic[] {
  const seen = new Map<string, CommandSyntax>();
  const found: Diagnostic[] = [];
  for (const command of commands) {
    const typeName = variablesTypeName(command.name);
    const first = seen.get(command.name) ?? seen.get(typeName);
    if (first && first.declaration !== command.declaration) {
      const where = `${first.location.file}:${first.location.line}:${first.location.column}`;
      const clash =
        first.name === command.name
          ? `two commands are named "${command.name}"`
          : `commands "${first.name}" and "${command.name}" would both generate the type ${typeName}`;
      found.push(
        diagnosticAt(
          command.declaration,
          cwd,
          "CG005",
          `${clash} (the other is at ${where}); rename one, or set options.name`,
        ),
      );
    }
    seen.set(command.name, command).set(typeName, command);
  }
  return found;
}

function sortByName(commands: CommandDecl[]): CommandDecl[] {
  const unique = new Map(commands.map((command) => [command.name, command]));
  return [...unique.values()].sort((a, b) => byCodeUnit(a.name, b.name));
}

function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic) =>
    `${d.location.file}\u0000${String(d.location.line).padStart(8, "0")}\u0000${String(d.location.column).padStart(8, "0")}`;
  return diagnostics.sort((a, b) => byCodeUnit(key(a), key(b)));
}
