import {
  Node,
  SyntaxKind,
  type CallExpression,
  type ObjectLiteralExpression,
  type SourceFile,
  type SpreadAssignment,
  type VariableDeclaration,
} from "ts-morph";
import { DEFAULT_WATCH_TOOL } from "livecmd/internal";
import { diagnosticAt, DiagnosticError, unresolvedImportError } from "./locate.ts";
import { reused, type Reuse } from "../reuse.ts";
import type { DiagnosticCode } from "../model.ts";
import {
  isLivecmdFunction,
  moduleOf,
  unresolvedImport,
  variableOf,
  variableOfExpression,
} from "./resolveDeclaration.ts";

/** The app as its `defineApp({...})` call spells it, before any command is analysed. */
export interface AppSyntax {
  name: string;
  /** `description`, when the app gives one. */
  description?: string;
  /**
   * `agent.watchTool`: its name (the default when absent), or false; and the node that names it,
   * when written, for a diagnostic.
   */
  watchTool: { name: string | false; node?: Node };
  /** Each entry of `commands`, under the key it is registered with. */
  commands: { key: string; declaration: VariableDeclaration }[];
  /** Each element of `agent.grant`, and the variable it names (undefined when it names none). */
  grant: { node: Node; declaration: VariableDeclaration | undefined }[];
}

/**
 * The app as `appFile`'s `defineApp({...})` spells it. With `reuse`, what a spread or a grant of a
 * namespace import (`...orders`, `orders.orders_show`) names is kept while its module is unchanged.
 */
export function findApp(appFile: SourceFile, reuse?: Reuse): AppSyntax {
  const call = findDefineAppCall(appFile);
  const definition = call.getArguments()[0];
  if (!Node.isObjectLiteralExpression(definition)) {
    throw fail(
      call,
      "defineApp(...) must be given an object literal: defineApp({ name, commands, agent })",
    );
  }
  const description = readDescription(definition);
  return {
    name: readAppName(definition),
    ...(description !== undefined && { description }),
    watchTool: readWatchTool(definition),
    commands: readCommands(definition, reuse),
    grant: readGrant(definition, reuse),
  };
}

function findDefineAppCall(appFile: SourceFile): CallExpression {
  const calls = appFile
    .getDescendantsOfKind(SyntaxKind.CallExpression)
    .filter((call) => isLivecmdFunction(call.getExpression(), "defineApp", "model/app"));
  if (calls.length === 1) return calls[0]!;
  const where = calls[1] ?? appFile;
  throw fail(
    where,
    calls.length === 0
      ? `no defineApp(...) call from "livecmd" in this file; the app module must call defineApp once`
      : `defineApp(...) is called ${calls.length} times; an app module defines exactly one app`,
    "CG007",
  );
}

function readAppName(definition: ObjectLiteralExpression): string {
  const initializer = propertyInitializer(definition, "name");
  if (
    !Node.isStringLiteral(initializer) ||
    !/^[a-z][a-z0-9+.-]*$/.test(initializer.getLiteralValue())
  ) {
    throw fail(
      initializer,
      `the app's name is its URI scheme and must be a string literal of lowercase letters, digits, "+", "." or "-", starting with a letter (e.g. "app")`,
      "CG012",
    );
  }
  return initializer.getLiteralValue();
}

/** `description: "..."`, a string literal, when there is one. */
function readDescription(definition: ObjectLiteralExpression): string | undefined {
  if (!definition.getProperty("description")) return undefined;
  const initializer = propertyInitializer(definition, "description");
  if (Node.isStringLiteral(initializer) || Node.isNoSubstitutionTemplateLiteral(initializer))
    return initializer.getLiteralValue();
  throw fail(
    initializer,
    `the app's description must be a string literal, e.g. "Customers and their orders."`,
  );
}

/** `agent.watchTool`: a string literal or `false`; `DEFAULT_WATCH_TOOL` when absent. */
function readWatchTool(definition: ObjectLiteralExpression): AppSyntax["watchTool"] {
  const agent = propertyInitializer(definition, "agent");
  if (!Node.isObjectLiteralExpression(agent) || !agent.getProperty("watchTool"))
    return { name: DEFAULT_WATCH_TOOL };
  const node = propertyInitializer(agent, "watchTool");
  if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node))
    return { name: node.getLiteralValue(), node };
  if (Node.isFalseLiteral(node)) return { name: false, node };
  throw fail(
    node,
    `agent.watchTool must be a string literal (the watch tool's name) or false (no watch tool)`,
  );
}

function readCommands(definition: ObjectLiteralExpression, reuse?: Reuse): AppSyntax["commands"] {
  const initializer = propertyInitializer(definition, "commands");
  if (!Node.isObjectLiteralExpression(initializer)) {
    throw fail(initializer, "commands must be an object literal, e.g. { ...customers, ...orders }");
  }
  return initializer.getProperties().flatMap((element) => {
    if (Node.isSpreadAssignment(element)) {
      const fresh = (last: ThroughModule<unknown>) => unchanged(last.module, reuse);
      return reused(reuse, element, "spread", () => spreadCommands(element), fresh).value;
    }
    if (Node.isShorthandPropertyAssignment(element) || Node.isPropertyAssignment(element)) {
      const expression = Node.isPropertyAssignment(element)
        ? element.getInitializerOrThrow()
        : element;
      const unresolved = unresolvedImport(expression);
      if (unresolved)
        throw unresolvedImportError(
          element,
          unresolved,
          `commands names ${element.getName()}, which`,
        );
      return [{ key: element.getName(), declaration: variableOfExpression(expression) }].filter(
        hasDeclaration,
      );
    }
    throw fail(element, "commands may only hold spreads of command modules and command references");
  });
}

/** What a spread registers, and the module it spreads when it is a namespace import. */
function spreadCommands(element: SpreadAssignment): ThroughModule<AppSyntax["commands"]> {
  const spread = element.getExpression();
  // A namespace import's exports are read from the module, without type-checking it.
  const module = moduleOf(spread);
  const unresolved = module ? undefined : unresolvedImport(spread);
  if (unresolved)
    throw unresolvedImportError(element, unresolved, `commands spreads ${spread.getText()}, which`);
  const members = module?.getExports() ?? spread.getType().getProperties();
  return {
    module: module?.getDeclarations().find(Node.isSourceFile),
    value: members
      .map((symbol) => ({ key: symbol.getName(), declaration: variableOf(symbol) }))
      .filter(hasDeclaration),
  };
}

/** A value read through a namespace import's module (undefined: not through one). */
interface ThroughModule<T> {
  module: SourceFile | undefined;
  value: T;
}

/** Whether what was read through `module` still holds: it and all it imports are unchanged. */
function unchanged(module: SourceFile | undefined, reuse: Reuse | undefined): boolean {
  return module !== undefined && reuse !== undefined && !reuse.affected(module);
}

/** The variable a grant names, and the module it is named through (`orders.orders_show`). */
function grantedVariable(node: Node): ThroughModule<VariableDeclaration | undefined> {
  const module = Node.isPropertyAccessExpression(node)
    ? moduleOf(node.getExpression())?.getDeclarations().find(Node.isSourceFile)
    : undefined;
  return { module, value: variableOfExpression(node) };
}

function readGrant(definition: ObjectLiteralExpression, reuse?: Reuse): AppSyntax["grant"] {
  const agent = propertyInitializer(definition, "agent");
  if (!Node.isObjectLiteralExpression(agent))
    throw fail(agent, "agent must be an object literal: { grant: [...] }");
  const grant = propertyInitializer(agent, "grant");
  if (!Node.isArrayLiteralExpression(grant)) {
    throw fail(
      grant,
      "agent.grant must be an array literal of command references, e.g. [customers_show]",
    );
  }
  const fresh = (last: ThroughModule<unknown>) => unchanged(last.module, reuse);
  return grant.getElements().map((node) => ({
    node,
    declaration: reused(reuse, node, "grant", () => grantedVariable(node), fresh).value,
  }));
}

function propertyInitializer(object: ObjectLiteralExpression, name: string): Node {
  const property = object.getProperty(name);
  if (Node.isPropertyAssignment(property)) return property.getInitializerOrThrow();
  if (Node.isShorthandPropertyAssignment(property)) {
    const declaration = variableOfExpression(property)?.getInitializer();
    if (declaration) return declaration;
  }
  throw fail(property ?? object, `defineApp needs "${name}" written out here as "${name}: ..."`);
}

function hasDeclaration<T extends { declaration: VariableDeclaration | undefined }>(
  entry: T,
): entry is T & { declaration: VariableDeclaration } {
  return entry.declaration !== undefined;
}

/** `defineApp(...)` is not written the way codegen reads it (CG011 unless `code` says otherwise). */
function fail(node: Node, message: string, code: DiagnosticCode = "CG011"): DiagnosticError {
  return new DiagnosticError(diagnosticAt(node, code, message));
}
