import type { ReadResourceResult } from "@modelcontextprotocol/server";
import type { CommandEntry } from "../catalog.ts";
import { commandOf } from "../uri/index.ts";
import type { FieldError } from "../uri/template.ts";
import { argumentsObject, handlerArgs } from "./commandArguments.ts";
import { invalidUri, resourceNotFound } from "./protocolErrors.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * `resources/read` of a plain resource or an expanded template URI: parse with the generated
 * parser, rebuild the handler's arguments, validate them against the published `inputSchema`
 * exactly as `tools/call` would, and run the command as the agent.
 */
export async function readResource(served: ServedApp, uri: string): Promise<ReadResourceResult> {
  const name = commandOf(uri, served.catalog.scheme);
  const entry = name === undefined ? undefined : served.catalog.readable(name);
  if (!entry) throw resourceNotFound(uri);
  const args = argsOf(served, entry, uri);
  const errors = served.validator.validate(entry.inputSchema, argumentsObject(entry.arguments, args));
  if (errors.length > 0) throw invalidUri(uri, errors);
  served.admit(entry);
  const result = await served.runAsAgent(entry, args);
  return { contents: [{ uri, mimeType: entry.mimeType, text: JSON.stringify(result ?? null) }] };
}

function argsOf(served: ServedApp, entry: CommandEntry, uri: string): unknown[] {
  const template = served.catalog.template(entry);
  if (template) {
    const parsed = template.parse(uri);
    if (!parsed.ok) throw invalidUri(uri, parsed.errors);
    return template.args(parsed.vars);
  }
  if (uri !== entry.resource) throw invalidUri(uri, [plainResourceOnly(entry.resource!)]);
  return handlerArgs(entry.arguments, {});
}

function plainResourceOnly(resource: string): FieldError {
  return { field: "uri", message: `this command takes no variables; read ${resource}` };
}
