/**
 * Values for a template's variables from examples in its description ("policy names are
 * lowercase with hyphens, e.g. on-call-escalation"), the way a person filling in the template
 * would read it. An example belongs to the variables its clause names before it, in the order
 * named (a plural counts: "names" names `name`); in a clause that names none, to the variables
 * still without a value, when there are as many of them as examples. A guess that fits neither
 * gives nothing, never a value for the wrong variable.
 */
export function descriptionExamples(
  description: string,
  variables: readonly string[],
  known: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const found = new Map<string, string>();
  for (const clause of clauses(description)) {
    for (const { before, examples } of exampleGroups(clause)) {
      const named = namedIn(before, variables);
      const unvalued = variables.filter((name) => !known.has(name) && !found.has(name));
      const owners = named.length > 0 ? named : unvalued;
      if (owners.length === 1) setOnce(found, owners[0]!, examples[0]!);
      else if (owners.length === examples.length)
        owners.forEach((name, i) => setOnce(found, name, examples[i]!));
    }
  }
  return found;
}

const MARKER = /\b(?:e\.g\.|for example|such as)[,:]?\s+/gi;

/** Sentences and `;`-separated clauses; the periods of "e.g." and "i.e." end nothing. */
function clauses(description: string): string[] {
  return description.split(/;|(?<!\be\.g|\bi\.e)\.\s+/);
}

function exampleGroups(clause: string): { before: string; examples: string[] }[] {
  const groups: { before: string; examples: string[] }[] = [];
  let previousEnd = 0;
  for (const marker of clause.matchAll(MARKER)) {
    const start = marker.index + marker[0].length;
    const text = /^[^)\]]*/.exec(clause.slice(start))![0];
    const examples = text
      .split(/\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+/)
      .map((example) => example.replace(/^["'`]|["'`]?[.]?$/g, ""));
    if (examples.length > 0 && examples.every((example) => /^\S+$/.test(example)))
      groups.push({ before: clause.slice(previousEnd, marker.index), examples });
    previousEnd = start + text.length;
  }
  return groups;
}

function namedIn(text: string, variables: readonly string[]): string[] {
  const positions = variables
    .map((name) => ({ name, at: text.search(new RegExp(`\\b${escape(name)}s?\\b`, "i")) }))
    .filter(({ at }) => at >= 0);
  return positions.sort((a, b) => a.at - b.at).map(({ name }) => name);
}

function setOnce(found: Map<string, string>, name: string, value: string): void {
  if (!found.has(name)) found.set(name, value);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
