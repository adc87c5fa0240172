import { analyzeCommand } from "./analyzeCommand.ts";
import { byCodeUnit, type AppDecl, type CommandDecl, type Diagnostic } from "../model.ts";
import type { DiscoveredApp } from "../discover/discoverApp.ts";
import { DiagnosticsCollector } from "../discover/locate.ts";
import { reused, type Reuse } from "../reuse.ts";

/**
 * Every discovered command's parameters and result as JSON Schema. Problems are collected, not
 * thrown, so one run reports all of them. With `reuse`, a command whose syntax was reused (its
 * source and what it imports unchanged) keeps its analysis.
 */
export function analyzeApp(
  discovered: DiscoveredApp,
  reuse?: Reuse,
): { app: AppDecl; diagnostics: Diagnostic[] } {
  const collector = new DiagnosticsCollector();
  const decls = discovered.commands.flatMap((command) => {
    const granted = discovered.granted.has(command);
    const decl = collector.collect(() =>
      reused(reuse, command, `decl ${granted}`, () => analyzeCommand(command, granted)),
    );
    return decl ? [decl] : [];
  });
  return {
    app: {
      name: discovered.name,
      ...(discovered.description !== undefined && { description: discovered.description }),
      watchTool: discovered.watchTool,
      file: discovered.file,
      commands: sortByName(decls),
    },
    diagnostics: collector.diagnostics,
  };
}

function sortByName(commands: CommandDecl[]): CommandDecl[] {
  const unique = new Map(commands.map((command) => [command.name, command]));
  return [...unique.values()].sort((a, b) => byCodeUnit(a.name, b.name));
}

/** Diagnostics in the order of their places: by file, line and column. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic) =>
    `${d.location.file}\u0000${String(d.location.line).padStart(8, "0")}\u0000${String(d.location.column).padStart(8, "0")}`;
  return diagnostics.sort((a, b) => byCodeUnit(key(a), key(b)));
}
