import type { PlanNode } from "./planNode.ts";

/** What a plan may call: functions by name (`schema` when the plan qualifies it) and operators. */
export interface PlanCalls {
  readonly functions: readonly CalledName[];
  readonly operators: readonly string[];
}

export interface CalledName {
  readonly schema?: string;
  readonly name: string;
}

const IDENTIFIER = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
/** `name(` or `schema.name(`: how EXPLAIN (VERBOSE) prints a call, with no space before the parenthesis. */
const CALL = new RegExp(`(?:(${IDENTIFIER})\\.)?(${IDENTIFIER})\\(`, "g");
/** PostgreSQL's operator characters. */
const OPERATOR = /[+\-*/<>=~!@#%^&|`?]+/g;
/** A string constant (quotes doubled inside) or a quoted identifier. */
const QUOTED = /'(?:[^']|'')*'|"(?:[^"]|"")*"/g;

/**
 * Every name a plan calls like a function, in any expression it prints (select lists, filters,
 * join and index conditions, sort and group keys, function scans), and every operator. Read
 * from the text, this finds more than is called (a constant's text is left out, but a name
 * before a parenthesis may be a construct such as `ROW(`), never less: what a name stands for
 * is looked up in the catalog (`functionReads.ts`).
 */
export function planCalls(nodes: readonly PlanNode[]): PlanCalls {
  const functions = new Map<string, CalledName>();
  const operators = new Set<string>();
  for (const text of nodes.flatMap(expressionTexts)) {
    for (const [, schema, name] of text.replace(/'(?:[^']|'')*'/g, "''").matchAll(CALL)) {
      const called =
        schema === undefined
          ? { name: unquoted(name!) }
          : { schema: unquoted(schema), name: unquoted(name!) };
      functions.set(JSON.stringify(called), called);
    }
    for (const [operator] of text.replace(QUOTED, " ").matchAll(OPERATOR)) operators.add(operator);
  }
  for (const node of nodes)
    if (node["Function Name"] !== undefined) {
      const called = { schema: node.Schema ?? "", name: node["Function Name"] };
      functions.set(JSON.stringify(called), called);
    }
  return { functions: [...functions.values()], operators: [...operators].sort() };
}

/** The node's own strings and string lists (its children are nodes of their own). */
function expressionTexts(node: PlanNode): string[] {
  return Object.entries(node).flatMap(([field, value]) => {
    if (field === "Plans") return [];
    if (typeof value === "string") return [value];
    return Array.isArray(value) ? value.filter((each) => typeof each === "string") : [];
  });
}

function unquoted(identifier: string): string {
  return identifier.startsWith('"') ? identifier.slice(1, -1).replaceAll('""', '"') : identifier;
}
