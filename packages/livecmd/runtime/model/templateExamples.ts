import { descriptionExamples } from "../text/descriptionExamples.ts";
import { expandTemplate } from "./callUri.ts";
import type { CommandEntry } from "./catalog.ts";
import { variableSchema } from "./commandArguments.ts";

/** An example value of a template variable, as a URI writes it, and where the author gave it. */
export interface VariableExample {
  readonly value: string;
  readonly from: "summary" | "variable";
}

/** The variables of one of livecmd's template strings, in order: `{id}` and `{?a,b}`. */
export function templateVariableNames(template: string): string[] {
  return [...template.matchAll(/\{\??([^}]*)\}/g)].flatMap((match) => match[1]!.split(","));
}

/**
 * An example value for each variable of `entry`'s template that has one, from any place the docs
 * tell an author to write it: the summary (`One note by id (e.g. 1).`), the variable's own doc
 * (its `@param` or field comment: `The note's id, e.g. 1.`) or an `@example` tag (the schema's
 * `examples`). The summary's comes first: every listing shows it.
 */
export function templateExamples(entry: CommandEntry): Map<string, VariableExample> {
  const names = entry.template === null ? [] : templateVariableNames(entry.template);
  const found = new Map<string, VariableExample>();
  for (const [name, value] of descriptionExamples(entry.description, names))
    found.set(name, { value, from: "summary" });
  for (const name of names) {
    if (found.has(name)) continue;
    const value = ownExample(variableSchema(entry.arguments, entry.inputSchema, name), name);
    if (value !== undefined) found.set(name, { value, from: "variable" });
  }
  return found;
}

/**
 * What a template is listed with: the summary, then an example of each variable the summary gives
 * none for (`` `id`: e.g. 1``). A host shows a template's description, and nothing of its
 * variables' docs, to the person filling it in; `livecmd doctor` reads it as a host would.
 */
export function templateDescription(entry: CommandEntry): string {
  const clauses = [...templateExamples(entry)]
    .filter(([, example]) => example.from === "variable")
    .map(
      ([name, { value }]) =>
        `\`${name}\`: e.g. ${/^\S+$/.test(value) ? value : JSON.stringify(value)}`,
    );
  if (clauses.length === 0) return entry.description;
  const summary = /[.!?]$/.test(entry.description) ? entry.description : `${entry.description}.`;
  return `${summary} ${clauses.join("; ")}.`;
}

function ownExample(schema: { [keyword: string]: unknown } | undefined, name: string) {
  const [example] = Array.isArray(schema?.examples) ? schema.examples : [];
  if (["string", "number", "boolean"].includes(typeof example)) return String(example);
  const described = typeof schema?.description === "string" ? schema.description : "";
  return descriptionExamples(described, [name]).get(name);
}

/**
 * The URI a host would read `entry` by, with its examples: every variable that has one, the
 * others left out; its plain resource when it has no template. Undefined `uri`, and the path
 * variables that have no example, when there is none to fill one in.
 */
export function exampleUri(entry: CommandEntry): { uri?: string; missing: string[] } {
  if (entry.template === null)
    return { ...(entry.resource && { uri: entry.resource }), missing: [] };
  const examples = templateExamples(entry);
  const missing: string[] = [];
  const uri = expandTemplate(
    entry.template,
    (name) => examples.get(name)?.value,
    (name) => missing.push(name),
  );
  return missing.length > 0 ? { missing } : { uri, missing };
}
