import type { AuthInfo } from "@modelcontextprotocol/server";
import type { CommandEntry } from "../../model/catalog.ts";
import { commandOf } from "../../uri/index.ts";
import type { FieldError } from "../../uri/template.ts";
import { argumentsObject, handlerArgs, variableOf } from "../../model/commandArguments.ts";
import { invalidUri, resourceNotFound } from "../errors/protocolErrors.ts";
import type { ServedApp } from "./servedApp.ts";

/** A URI the agent may read: the granted command it names and the handler's arguments. */
export interface ResolvedUri {
  readonly entry: CommandEntry;
  readonly args: readonly unknown[];
}

/**
 * Resolves a plain resource or an expanded template URI the way `resources/read` does: parse
 * with the generated parser, rebuild the handler's arguments and validate them against the
 * published `inputSchema` exactly as `tools/call` would. Throws the error a read of `uri` gives,
 * so reads and subscriptions accept exactly the same URIs and refuse the rest alike; its fields
 * are the URI's variables, as the parser's are.
 */
export function resolveUri(
  served: ServedApp,
  uri: string,
  auth: AuthInfo | undefined,
): ResolvedUri {
  const name = commandOf(uri, served.catalog.scheme);
  const entry = name === undefined ? undefined : served.catalog.readable(name, auth);
  if (!entry) throw resourceNotFound(uri);
  const { args, unread } = argsOf(served, entry, uri);
  const invalid = served.validator
    .validate(entry.inputSchema, argumentsObject(entry.arguments, args))
    .map(({ field, message }) => ({ field: variableOf(entry.arguments, field), message }))
    // A variable that did not convert is absent from the arguments: its own error says why.
    .filter(({ field }) => !unread.some((error) => error.field === field));
  const errors = [...unread, ...invalid];
  if (errors.length > 0) throw invalidUri(uri, errors);
  return { entry, args };
}

/**
 * The handler's arguments from `uri`, and the variables that did not convert (every error at
 * once: the schema checks the others). A URI that cannot be split into variables is refused.
 */
function argsOf(
  served: ServedApp,
  entry: CommandEntry,
  uri: string,
): { args: unknown[]; unread: readonly FieldError[] } {
  const template = served.catalog.template(entry);
  if (template) {
    const parsed = template.parse(uri);
    if (parsed.ok) return { args: template.args(parsed.vars), unread: [] };
    if (!parsed.vars) throw invalidUri(uri, parsed.errors);
    return { args: template.args(parsed.vars as Record<string, unknown>), unread: parsed.errors };
  }
  if (uri !== entry.resource) throw invalidUri(uri, [plainResourceOnly(entry.resource!)]);
  return { args: handlerArgs(entry.arguments, {}), unread: [] };
}

function plainResourceOnly(resource: string): FieldError {
  return { field: "uri", message: `this command takes no variables; read ${resource}` };
}
