import { builders } from "prettier/doc";
import type { Doc } from "./layOut.ts";
import { propertyKey } from "./propertyKey.ts";
import { stringLiteral } from "./stringLiteral.ts";

const { group, indent, line, softline, ifBreak, join } = builders;

/**
 * A JSON value as a TypeScript literal, with the doc prettier's printer makes of that literal
 * written on one line: objects and arrays print flat when they fit and one entry a line when not.
 */
export function literalDoc(value: unknown): Doc {
  if (typeof value === "string") return stringLiteral(value);
  if (Array.isArray(value))
    return isNumberList(value)
      ? numberListDoc(value, ifBreak(","))
      : arrayDoc(value.map(literalDoc), isMatrix(value));
  if (value !== null && typeof value === "object")
    return objectDoc(Object.entries(value).map(([key, entry]) => propertyDoc(key, entry)));
  return JSON.stringify(value);
}

/** `[a, b]`, or one element a line (always, for a table: see `isMatrix`). */
export function arrayDoc(
  elements: Doc[],
  alwaysBreak = false,
  trailingComma: Doc = ifBreak(","),
): Doc {
  if (elements.length === 0) return "[]";
  const grouped = elements.map((element) => group(element));
  return group(
    ["[", indent([softline, join([",", line], grouped), trailingComma]), softline, "]"],
    { shouldBreak: alwaysBreak },
  );
}

/**
 * Prettier breaks an array of two or more objects (or two or more arrays) that each have two or
 * more entries even when it would fit: a table reads better as rows.
 */
export function isMatrix(values: unknown[]): boolean {
  if (values.length < 2) return false;
  const wide = (value: unknown) =>
    value !== null && typeof value === "object" && Object.keys(value).length > 1;
  const firstIsArray = Array.isArray(values[0]);
  return values.every((value) => wide(value) && Array.isArray(value) === firstIsArray);
}

/** Two or more numbers: as many a line as fit (prettier's concise arrays). */
export function isNumberList(values: unknown[]): values is number[] {
  return values.length > 1 && values.every((value) => typeof value === "number");
}

export function numberListDoc(values: number[], trailingComma: Doc): Doc {
  const parts = values.flatMap((value, index) =>
    index === values.length - 1
      ? [[JSON.stringify(value), trailingComma]]
      : [[JSON.stringify(value), ","], line],
  );
  return group(["[", indent([softline, builders.fill(parts)]), softline, "]"]);
}

function objectDoc(properties: Doc[]): Doc {
  if (properties.length === 0) return "{}";
  return group(["{", indent([line, join([",", line], properties)]), ifBreak(","), line, "}"]);
}

/**
 * `key: value`. A key narrower than 5 columns always keeps its value beside it; a wider key lets
 * a string that does not fit go to the next line, and lets other values move down too, when
 * even their first line does not fit beside it (prettier's assignment layouts).
 */
function propertyDoc(key: string, value: unknown): Doc {
  return assignmentDoc(propertyKey(key), literalDoc(value), typeof value === "string");
}

export function assignmentDoc(key: string, value: Doc, valueIsString: boolean): Doc {
  if (isShortKey(key)) return group([key, ": ", value]);
  if (valueIsString) return group([key, ":", group(indent([line, value]))]);
  const id = Symbol("assignment");
  return group([
    key,
    ":",
    group(indent(line), { id }),
    builders.indentIfBreak(value, { groupId: id }),
  ]);
}

/** Narrower than tabWidth + 3 columns: moving the value below would hardly gain any room. */
export function isShortKey(key: string): boolean {
  return key.length < 5;
}
