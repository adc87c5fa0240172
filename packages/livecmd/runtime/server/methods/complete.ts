import type { AuthInfo, CompleteRequest, CompleteResult } from "@modelcontextprotocol/server";
import type { CommandEntry } from "../../model/catalog.ts";
import type { JsonSchema } from "../../uri/template.ts";
import { unknownPrompt, unknownTemplate, unknownVariable } from "../errors/protocolErrors.ts";
import type { ServedApp } from "../served/servedApp.ts";

/** The most values one completion returns (the spec's cap); `total` and `hasMore` tell the rest. */
const MAX_VALUES = 100;

/**
 * `completion/complete` for a variable of a granted template: what its schema knows (enum
 * constants, or `true`/`false` for a boolean, filtered by the typed prefix), then what the app's
 * completer for it offers (`app.complete`), without repeats, at most 100. A completer that
 * throws gives nothing (the error goes to `onerror`): a completion is a hint, never a failure.
 */
export async function complete(
  served: ServedApp,
  params: CompleteRequest["params"],
  auth?: AuthInfo,
): Promise<CompleteResult> {
  const { ref, argument } = params;
  if (ref.type !== "ref/resource") throw unknownPrompt(ref);
  const entry = served.catalog.readableByTemplate(ref.uri, auth);
  const template = entry && served.catalog.template(entry);
  if (!entry || !template) throw unknownTemplate(ref);
  const variable = template.variables.find((candidate) => candidate.name === argument.name);
  if (!variable)
    throw unknownVariable(
      ref,
      argument.name,
      template.variables.map((candidate) => candidate.name),
    );
  const fromSchema = candidatesOf(variable.schema).filter((value) =>
    value.startsWith(argument.value),
  );
  const fromApp = await appCompletions(
    served,
    entry,
    variable.name,
    argument.value,
    params.context?.arguments ?? {},
    auth,
  );
  const matches = [...new Set([...fromSchema, ...fromApp])];
  return {
    completion: {
      values: matches.slice(0, MAX_VALUES),
      total: matches.length,
      hasMore: matches.length > MAX_VALUES,
    },
  };
}

async function appCompletions(
  served: ServedApp,
  entry: CommandEntry,
  variable: string,
  prefix: string,
  filled: Readonly<Record<string, string>>,
  auth: AuthInfo | undefined,
): Promise<string[]> {
  if (!served.engine.hasCompleter(entry.name, variable)) return [];
  served.admit(entry);
  try {
    const values = await served.engine.completions(entry.name, variable, prefix, filled, auth);
    return values.filter((value): value is string => typeof value === "string");
  } catch (error) {
    served.onerror(
      new Error(
        `completing ${variable} of ${entry.name} for ${JSON.stringify(prefix)} failed: ${error instanceof Error ? error.message : String(error)}; answered with no values`,
      ),
    );
    return [];
  }
}

function candidatesOf(schema: JsonSchema): string[] {
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches))
    return [...new Set(branches.flatMap((branch: JsonSchema) => candidatesOf(branch)))];
  if (Array.isArray(schema.enum))
    return schema.enum.filter((value): value is string => typeof value === "string");
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes("boolean") ? ["true", "false"] : [];
}
