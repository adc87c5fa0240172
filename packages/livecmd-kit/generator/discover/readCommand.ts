import {
  Node,
  type ArrowFunction,
  type FunctionExpression,
  type JSDocTag,
  type ObjectLiteralExpression,
  type ParameterDeclaration,
  type VariableDeclaration,
} from "ts-morph";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { SourceLocation, StatedAnnotations, ViewOption } from "../model.ts";
import { diagnosticAt, DiagnosticError, locationOf } from "./locate.ts";
import { isLivecmdFunction } from "./resolveDeclaration.ts";

/** One `export const name = command(options, handler)` as written, before its types are analysed. */
export interface CommandSyntax {
  name: string;
  live: boolean;
  confirm: boolean;
  title?: string;
  annotations: StatedAnnotations;
  mimeType: string;
  /** `view: true` or `view: { html }` (the file read); absent without a view. */
  view?: ViewOption;
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
    !isLivecmdFunction(call.getExpression(), "command", "model/command")
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
  const view = readView(optionsNode, options);
  return {
    name,
    live: options.live === true,
    confirm: readConfirm(optionsNode, options.confirm),
    annotations: readAnnotations(optionsNode, options.annotations),
    ...(typeof options.title === "string" && { title: options.title }),
    mimeType: typeof options.mimeType === "string" ? options.mimeType : "application/json",
    ...(view && { view }),
    description: docs.description,
    paramDocs: docs.params,
    paramTags: docs.tags,
    params: handler.getParameters().slice(1),
    handler,
    declaration,
    location: locationOf(declaration),
  };
}

/** `confirm: true`, or `confirm: { message: "..." }` (the app's own question to the person). */
function readConfirm(
  optionsNode: ObjectLiteralExpression,
  confirm: LiteralOptions[string] | undefined,
): boolean {
  if (confirm === undefined || typeof confirm === "boolean") return confirm === true;
  if (
    typeof confirm === "object" &&
    Object.keys(confirm).join() === "message" &&
    typeof confirm.message === "string" &&
    confirm.message.trim() !== ""
  )
    return true;
  throw new DiagnosticError(
    diagnosticAt(
      optionNode(optionsNode, "confirm"),
      "CG014",
      `confirm must be true, false or { message: "the question to ask the person" }`,
    ),
  );
}

/**
 * `view: true` (livecmd's view) or `view: { html: "./file.html" }` (the app's own page, a path
 * from the command's file, read now so catalog.json carries it and the server reads no files).
 */
function readView(
  optionsNode: ObjectLiteralExpression,
  options: LiteralOptions,
): ViewOption | undefined {
  const { view } = options;
  if (view === undefined || view === false) return undefined;
  const fail = (message: string) =>
    new DiagnosticError(diagnosticAt(optionNode(optionsNode, "view"), "CG014", message));
  if (options.live !== true)
    throw fail(
      "view needs live: true: a view shows what reading the command returns and keeps it current",
    );
  if (view === true) return { kind: "default" };
  if (
    typeof view !== "object" ||
    Object.keys(view).join() !== "html" ||
    typeof view.html !== "string"
  )
    throw fail(`view must be true, false or { html: "./file.html" } (a path from this file)`);
  const file = path.resolve(path.dirname(optionsNode.getSourceFile().getFilePath()), view.html);
  try {
    return { kind: "html", html: readFileSync(file, "utf8") };
  } catch (error) {
    throw fail(
      `view.html "${view.html}" cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); give a path to an HTML file from this file`,
    );
  }
}

const STATED_ANNOTATIONS = ["idempotentHint", "openWorldHint"] as const;

/** `annotations: { idempotentHint?, openWorldHint? }`, booleans; the other hints are derived. */
function readAnnotations(
  optionsNode: ObjectLiteralExpression,
  annotations: LiteralOptions[string] | undefined,
): StatedAnnotations {
  if (annotations === undefined) return {};
  const problem =
    typeof annotations !== "object"
      ? "annotations must be an object, e.g. { idempotentHint: true }"
      : Object.entries(annotations)
          .map(([key, value]) =>
            !(STATED_ANNOTATIONS as readonly string[]).includes(key)
              ? `annotations.${key} is not one an app states: readOnlyHint comes from live, destructiveHint from confirm, title from title; state idempotentHint or openWorldHint`
              : typeof value !== "boolean"
                ? `annotations.${key} must be true or false`
                : undefined,
          )
          .find((message) => message !== undefined);
  if (problem !== undefined || typeof annotations !== "object")
    throw new DiagnosticError(
      diagnosticAt(optionNode(optionsNode, "annotations"), "CG014", problem!),
    );
  const stated: StatedAnnotations = {};
  for (const key of STATED_ANNOTATIONS)
    if (typeof annotations[key] === "boolean") stated[key] = annotations[key];
  return stated;
}

function optionNode(optionsNode: ObjectLiteralExpression, name: string): Node {
  return optionsNode.getProperty(name) ?? optionsNode;
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
