import type { Session } from "./connect.ts";
import { descriptionExamples } from "livecmd/internal";
import { errorText } from "./errorText.ts";
import { templateVariables, type TemplatePart } from "./templateGrammar.ts";

export type ValueSource = "completion" | "description";

export interface TemplateValues {
  values: Map<string, string>;
  sources: Map<string, ValueSource>;
  /** Variables a host cannot leave out that got no value: anything outside `{?...}` and `{&...}`. */
  missing: string[];
  /** `completion/complete` calls that failed, as "variable: error". */
  completionErrors: string[];
}

/**
 * Values a host could offer for the template's variables: the first suggestion of
 * `completion/complete` (asked with what is chosen so far, as a host's form would), else an
 * example from the description. Query variables may stay without one: RFC 6570 leaves an
 * undefined variable out of the expansion.
 */
export async function templateValues(
  session: Session,
  template: { uriTemplate: string; description?: string },
  parts: readonly TemplatePart[],
  timeoutMs: number,
): Promise<TemplateValues> {
  const names = templateVariables(parts);
  const values = new Map<string, string>();
  const sources = new Map<string, ValueSource>();
  const completionErrors: string[] = [];
  if (session.client.getServerCapabilities()?.completions) {
    for (const name of names) {
      try {
        const value = await firstCompletion(session, template.uriTemplate, name, values, timeoutMs);
        if (value !== undefined) {
          values.set(name, value);
          sources.set(name, "completion");
        }
      } catch (error) {
        completionErrors.push(`${name}: ${errorText(error, timeoutMs)}`);
      }
    }
  }
  const examples = descriptionExamples(template.description ?? "", names, new Set(values.keys()));
  for (const [name, value] of examples) {
    if (values.has(name)) continue;
    values.set(name, value);
    sources.set(name, "description");
  }
  const optional = new Set(
    parts.flatMap((part) =>
      "variables" in part && (part.operator === "?" || part.operator === "&")
        ? part.variables.map(({ name }) => name)
        : [],
    ),
  );
  const missing = names.filter((name) => !values.has(name) && !optional.has(name));
  return { values, sources, missing, completionErrors };
}

async function firstCompletion(
  session: Session,
  uriTemplate: string,
  name: string,
  chosen: ReadonlyMap<string, string>,
  timeoutMs: number,
): Promise<string | undefined> {
  const { completion } = await session.client.complete(
    {
      ref: { type: "ref/resource", uri: uriTemplate },
      argument: { name, value: "" },
      context: { arguments: Object.fromEntries(chosen) },
    },
    { timeout: timeoutMs },
  );
  return completion.values.find((value) => value !== "");
}
