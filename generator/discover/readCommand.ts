import {
  Node,
  type ArrowFunction,
  type FunctionExpression,
  type JSDocTag,
  type ObjectLiteralExpression,
  type ParameterDeclaration,
  type VariableDeclaration,
} from "ts-morph";
import type { SourceLocation } from "../model.ts";
import { diagnosticAt, DiagnosticError, locationOf } from "./locate.ts";
import { isLivecmdFunction } from "./resolveDeclaration.ts";

/** One `export const name = command(options, handler)` as written, before its types are analysed. */
export interface CommandSyntax {
  name: string;
  live: boolean;
  confirm: boolean;
  title?: string;
  mimeType: string;
  description: string;
  /** `@param` texts by parameter name. */
  paramDocs: Map<string, string>;
  /** The tags after each `@param`, up to the next one, by parameter name (`@minimum 1`, ...). */
  paramTags: Map<string, JSDocTag[]>;
  /** The handler's parameters after `ctx`. */
  params: ParameterDeclaration[];
  /** The handler itself: its return type is the command's result. */
  handler: ArrowFunction | FunctionExpression;
  declaration: VariableDeclaration;
  location: SourceLocation;
}

const COMMAND_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type LiteralOptions = { [key: string]: string | boolean | number | LiteralOptions };

/** Returns undefined for a variable that is not a command (a helper exported next to them). */
export function readCommand(
  key: string,
  declaration: VariableDeclaration,
): CommandSyntax | undefined {
  const call = declaration.getInitializer();
  if (
    !Node.isCallExpression(call) ||
    !isLivecmdFunction(call.getExpression(), "command", "command")
  )
    return undefined;
  const [optionsNode, handler] = call.getArguments();
  if (
    !Node.isObjectLiteralExpression(optionsNode) ||
    !(Node.isArrowFunction(handler) || Node.isFunctionExpression(handler))
  ) {
    throw new DiagnosticError(
      diagnosticAt(
        call,
        "CG001",
        `command "${key}" must be written command({ ...options }, async (ctx, ...args) => ...)`,
      ),
    );
  }
  const options = readLiteralOptions(optionsNode);
  const name = typeof options.name === "string" ? options.name : key;
  if (!COMMAND_NAME.test(name)) {
    throw new DiagnosticError(
      diagnosticAt(
        optionsNode,
        "CG010",
        `command name "${name}" must be letters, digits and "_", starting with a letter or "_" (it becomes a URI and a tool name)`,
      ),
    );
  }
  const docs = readDocs(declaration);
  return {
    name,
    live: options.live === true,
    confirm: options.confirm === true,
    ...(typeof options.title === "string" && { title: options.title }),
    mimeType: typeof options.mimeType === "string" ? options.mimeType : "application/json",
    description: docs.description,
    paramDocs: docs.params,
    paramTags: docs.tags,
    params: handler.getParameters().slice(1),
    handler,
    declaration,
    location: locationOf(declaration),
  };
}

/** Options must be literals: the catalog is decided at build time, not by running code. */
function readLiteralOptions(object: ObjectLiteralExpression): LiteralOptions {
  const options: LiteralOptions = {};
  for (const property of object.getProperties()) {
    const initializer = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
    const value = initializer && literalValue(initializer);
    if (value === undefined) {
      throw new DiagnosticError(
        diagnosticAt(
          property,
          "CG002",
          `command options must be literals (true, "text", 10, { ... }); write this option's value out`,
        ),
      );
    }
    options[(property as Node & { getName(): string }).getName()] = value;
  }
  return options;
}

function literalValue(node: Node): LiteralOptions[string] | undefined {
  if (Node.isTrueLiteral(node)) return true;
  if (Node.isFalseLiteral(node)) return false;
  if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node))
    return node.getLiteralValue();
  if (Node.isNumericLiteral(node)) return node.getLiteralValue();
  if (Node.isObjectLiteralExpression(node)) return readLiteralOptions(node);
  return undefined;
}

function readDocs(declaration: VariableDeclaration): {
  description: string;
  params: Map<string, string>;
  tags: Map<string, JSDocTag[]>;
} {
  const docs = declaration.getVariableStatement()?.getJsDocs() ?? [];
  const last = docs[docs.length - 1];
  const params = new Map<string, string>();
  const tags = new Map<string, JSDocTag[]>();
  let current: JSDocTag[] | undefined;
  for (const tag of last?.getTags() ?? []) {
    if (Node.isJSDocParameterTag(tag)) {
      params.set(tag.getName(), oneLine(tag.getCommentText() ?? ""));
      tags.set(tag.getName(), (current = []));
    } else current?.push(tag);
  }
  return { description: oneLine(last?.getDescription() ?? ""), params, tags };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
