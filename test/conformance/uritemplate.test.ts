import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { formQuery, pathSegment } from "../../packages/livecmd/runtime/uri/index.ts";

/*
 * The RFC 6570 test suite (uritemplate-test/, see SOURCE and LICENSE), run on the subset that
 * livecmd's templates use: literals, `{var}` with one variable, and `{?a,b,...}`, over scalar
 * string or number values (or undefined ones). Everything else (lists, associative arrays,
 * `:n` prefixes, `*` explode, other operators, several variables in `{...}`) is outside it
 * and skipped. A small interpreter below maps each template onto pathSegment and formQuery.
 */

type Variables = Record<string, unknown>;
type Expected = string | string[] | false;
interface Group {
  variables: Variables;
  testcases: [template: string, expected: Expected][];
}

/**
 * How many cases of each file are in the subset. Pinned, so that a change in the interpreter
 * or the data that silently skips cases fails here instead.
 */
const SUBSET_SIZES: Record<string, number> = {
  "spec-examples.json": 5,
  "spec-examples-by-section.json": 11,
  "extended-tests.json": 14,
  "negative-tests.json": 21,
};

/** A template or value that livecmd's subset has no counterpart for. */
const OUTSIDE = Symbol("outside the subset");
/** A template that is not valid RFC 6570. */
const INVALID = false;

type Part = { literal: string } | { simple: string } | { query: string[] };

/** The template expanded with livecmd's primitives; `false` when it is not valid RFC 6570. */
function expandSubset(
  template: string,
  variables: Variables,
): string | typeof INVALID | typeof OUTSIDE {
  const parts = parseTemplate(template);
  if (parts === INVALID || parts === OUTSIDE) return parts;
  let uri = "";
  for (const part of parts) {
    if ("literal" in part) uri += encodeLiteral(part.literal);
    else if ("simple" in part) {
      const value = scalar(variables[part.simple]);
      if (value === OUTSIDE) return OUTSIDE;
      // RFC 6570 section 3.2.1: an undefined variable expands to nothing.
      uri += value === undefined ? "" : pathSegment(value);
    } else {
      const pairs: [string, string | number | undefined][] = [];
      for (const name of part.query) {
        const value = scalar(variables[name]);
        if (value === OUTSIDE) return OUTSIDE;
        pairs.push([name, value]);
      }
      uri += formQuery(pairs);
    }
  }
  return uri;
}

function scalar(value: unknown): string | number | undefined | typeof OUTSIDE {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" || typeof value === "number") return value;
  return OUTSIDE;
}

const OTHER_OPERATORS = "+#./;&=,!@|";
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
/** RFC 6570 section 2.1, but with "'", which the suite's own examples use as a literal. */
const LITERAL = /^(?:[^\0- "%<>\\^`{|}\x7f]|%[0-9A-Fa-f]{2})*$/u;

function parseTemplate(template: string): Part[] | typeof INVALID | typeof OUTSIDE {
  const parts: Part[] = [];
  let rest = template;
  while (rest !== "") {
    const open = rest.indexOf("{");
    const literal = open < 0 ? rest : rest.slice(0, open);
    if (!LITERAL.test(literal) || literal.includes("}")) return INVALID;
    if (literal !== "") parts.push({ literal });
    if (open < 0) break;
    const close = rest.indexOf("}", open);
    if (close < 0 || rest.slice(open + 1, close).includes("{")) return INVALID;
    const expression = parseExpression(rest.slice(open + 1, close));
    if (expression === INVALID || expression === OUTSIDE) return expression;
    parts.push(expression);
    rest = rest.slice(close + 1);
  }
  return parts;
}

function parseExpression(body: string): Part | typeof INVALID | typeof OUTSIDE {
  if (body === "") return INVALID;
  if (OTHER_OPERATORS.includes(body[0]!)) return OUTSIDE;
  const isQuery = body[0] === "?";
  const varspecs = (isQuery ? body.slice(1) : body).split(",");
  if (varspecs.some((varspec) => varspec.includes(":") || varspec.endsWith("*"))) return OUTSIDE;
  if (!varspecs.every((varspec) => VARNAME.test(varspec))) return INVALID;
  if (isQuery) return { query: varspecs };
  return varspecs.length === 1 ? { simple: varspecs[0]! } : OUTSIDE;
}

/** RFC 6570 section 3.1: copy what a URI allows anywhere, percent-encode the rest. */
function encodeLiteral(literal: string): string {
  let out = "";
  for (const char of literal)
    out += /[\w\-.~:/?#[\]@!$&'()*+,;=%]/.test(char) ? char : pathSegment(char);
  return out;
}

describe("RFC 6570 conformance (uritemplate-test), livecmd's subset", () => {
  for (const [file, expectedSize] of Object.entries(SUBSET_SIZES)) {
    describe(file, () => {
      const groups = JSON.parse(
        readFileSync(new URL(`uritemplate-test/${file}`, import.meta.url), "utf8"),
      ) as Record<string, Group>;
      let size = 0;
      for (const [groupName, { variables, testcases }] of Object.entries(groups)) {
        for (const [template, expected] of testcases) {
          const actual = expandSubset(template, variables);
          if (actual === OUTSIDE) continue;
          size++;
          it(`${groupName}: ${template}`, () => {
            if (Array.isArray(expected))
              assert.ok(
                expected.includes(actual as string),
                `${String(actual)} is none of ${expected.join(" ")}`,
              );
            else assert.equal(actual, expected);
          });
        }
      }
      it(`has ${expectedSize} cases in the subset`, (t) => {
        t.diagnostic(`${size} cases of ${file} are in livecmd's subset`);
        assert.ok(size > 0);
        assert.equal(size, expectedSize);
      });
    });
  }
});
