import type { Node, Project } from "ts-morph";
import { variablesTypeName } from "../plan/naming.ts";
import type { Diagnostic } from "../model.ts";
import { watchToolNameProblem } from "livecmd/internal";
import { findApp, type AppSyntax } from "./findApp.ts";
import { addAppSource } from "./createProject.ts";
import {
  diagnosticAt,
  DiagnosticError,
  DiagnosticsCollector,
  relativeFile,
  unresolvedImportError,
} from "./locate.ts";
import { unresolvedImport } from "./resolveDeclaration.ts";
import { readCommand, type CommandSyntax } from "./readCommand.ts";
import { reused, type Reuse } from "../reuse.ts";

/** What discover finds of an app: its name and module, its commands' syntax, the granted ones. */
export interface DiscoveredApp {
  name: string;
  description?: string;
  /** The watch tool's name; null when the app serves none. */
  watchTool: string | null;
  /** The app module, relative to the project's root. */
  file: string;
  commands: CommandSyntax[];
  granted: ReadonlySet<CommandSyntax>;
}

/**
 * The app module `appFile` (absolute) and every command it registers, as syntax; `app` is
 * undefined when there is no app to read at all. Problems are collected, not thrown: the
 * commands that could be read go on to analysis, so one run reports every problem. With `reuse`,
 * a command whose source is unchanged keeps the syntax read last time.
 */
export function discoverApp(
  project: Project,
  appFile: string,
  reuse?: Reuse,
): { app: DiscoveredApp | undefined; diagnostics: Diagnostic[] } {
  const collector = new DiagnosticsCollector();
  const source = addAppSource(project, appFile);
  const syntax = collector.collect(() => findApp(source, reuse));
  if (!syntax) return { app: undefined, diagnostics: collector.diagnostics };
  const commands = syntax.commands.flatMap(({ key, declaration }) => {
    const command = collector.collect(() =>
      reused(
        reuse,
        declaration,
        `syntax ${key}`,
        () => readCommand(key, declaration),
        !reuse?.affected(declaration),
      ),
    );
    return command ? [command] : [];
  });
  const byDeclaration = new Map(commands.map((command) => [command.declaration, command]));
  const registered = new Set(syntax.commands.map(({ declaration }) => declaration));
  const granted = new Set(
    syntax.grant.flatMap(
      (element) =>
        collector.collect(() => grantedCommand(element, byDeclaration, registered)) ?? [],
    ),
  );
  collector.diagnostics.push(...duplicateNames(commands));
  const watchTool = collector.collect(() => checkedWatchTool(syntax, commands)) ?? null;
  return {
    app: {
      name: syntax.name,
      ...(syntax.description !== undefined && { description: syntax.description }),
      watchTool,
      file: relativeFile(source),
      commands,
      granted,
    },
    diagnostics: collector.diagnostics,
  };
}

/** `agent.watchTool`, checked as the runtime checks it: a tool name no command has. */
function checkedWatchTool(
  { watchTool: { name, node } }: AppSyntax,
  commands: CommandSyntax[],
): string | null {
  if (name === false) return null;
  const problem = watchToolNameProblem(
    name,
    commands.map((command) => command.name),
  );
  if (!problem) return name;
  const at = node ?? commands.find((command) => command.name === name)!.declaration;
  throw new DiagnosticError(
    diagnosticAt(at, problem.kind === "taken" ? "CG005" : "CG010", problem.message),
  );
}

/**
 * The command a grant element names: none for a registered command whose own problem was
 * reported when it was read (it is no stray grant).
 */
function grantedCommand(
  { node, declaration }: AppSyntax["grant"][number],
  commands: ReadonlyMap<Node, CommandSyntax>,
  registered: ReadonlySet<Node>,
): CommandSyntax[] {
  const command = declaration && commands.get(declaration);
  if (command) return [command];
  if (declaration && registered.has(declaration)) return [];
  const unresolved = unresolvedImport(node);
  if (unresolved)
    throw unresolvedImportError(node, unresolved, `agent.grant lists "${node.getText()}", which`);
  throw new DiagnosticError(
    diagnosticAt(
      node,
      "CG006",
      `agent.grant lists "${node.getText()}", which is not one of this app's commands; grant only commands registered in defineApp({ commands })`,
    ),
  );
}

/** Names must be unique, and so must the type names generated from them (`Orders` and `orders`). */
function duplicateNames(commands: CommandSyntax[]): Diagnostic[] {
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
          "CG005",
          `${clash} (the other is at ${where}); rename one, or set options.name`,
        ),
      );
    }
    seen.set(command.name, command).set(typeName, command);
  }
  return found;
}
