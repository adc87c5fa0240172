import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { expandTemplate } from "../../packages/livecmd/cli/doctor/expandTemplate.ts";
import {
  parseTemplate,
  templateLevel,
  templateVariables,
} from "../../packages/livecmd/cli/doctor/templateGrammar.ts";

/*
 * The RFC 6570 test suite (../conformance/uritemplate-test): every template of its examples must
 * parse, every negative one must not (but the two that only fail when a list or map is expanded
 * with a prefix), and each case whose values are all strings must expand to the suite's answer.
 */

type Expected = string | string[] | false;
interface Group {
  variables: Record<string, unknown>;
  testcases: [template: string, expected: Expected][];
}

const suite = (file: string) =>
  Object.values(
    JSON.parse(
      readFileSync(new URL(`../conformance/uritemplate-test/${file}`, import.meta.url), "utf8"),
    ) as Record<string, Group>,
  );

/** Valid syntax; an error only when expanded with a composite value, which doctor never does. */
const EXPANSION_ERRORS = new Set(["{keys:1}", "{+keys:1}"]);

/** How many cases have string values only, pinned so that a silently skipped case fails here. */
const STRING_CASES: Record<string, number> = {
  "spec-examples.json": 32,
  "spec-examples-by-section.json": 72,
  "extended-tests.json": 29,
};

describe("RFC 6570 template grammar (uritemplate-test)", () => {
  for (const [file, expectedCount] of Object.entries(STRING_CASES)) {
    describe(file, () => {
      let count = 0;
      for (const { variables, testcases } of suite(file)) {
        for (const [template, expected] of testcases) {
          const parsed = parseTemplate(template);
          it(`parses ${template}`, () =>
            assert.equal(parsed.ok, true, parsed.ok ? "" : parsed.message));
          if (!parsed.ok) continue;
          const names = templateVariables(parsed.parts);
          const values = names.map((name) => [name, variables[name]] as const);
          if (values.some(([, value]) => typeof value === "object" && value !== null)) continue;
          count++;
          it(`expands ${template} as the suite says`, () => {
            const defined = values.filter(([, value]) => value !== undefined && value !== null);
            const uri = expandTemplate(
              parsed.parts,
              new Map(defined.map(([name, value]) => [name, String(value)])),
            );
            assert.ok(
              Array.isArray(expected) ? expected.includes(uri) : uri === expected,
              `${uri} is not ${String(expected)}`,
            );
          });
        }
      }
      it(`has ${expectedCount} cases with string values`, () => assert.equal(count, expectedCount));
    });
  }

  describe("negative-tests.json", () => {
    for (const { testcases } of suite("negative-tests.json")) {
      for (const [template] of testcases) {
        if (EXPANSION_ERRORS.has(template)) {
          it(`parses ${template}, an error only at expansion`, () =>
            assert.equal(parseTemplate(template).ok, true));
        } else it(`rejects ${template}`, () => assert.equal(parseTemplate(template).ok, false));
      }
    }
  });
});

describe("RFC 6570 template grammar, the reasons it gives", () => {
  const cases: [template: string, index: number, message: RegExp][] = [
    ["app://x/{id", 8, /a "\{" at position 8 that is never closed/],
    ["app://x/{a{b}", 8, /never closed/],
    ["app://x/id}", 10, /a "\}" at position 10 that closes no expression/],
    ["app://x/{=id}", 9, /the operator "=" at position 9, which RFC 6570 reserves/],
    ["app://x/{id,}", 12, /"" at position 12, which is not a variable name/],
    ["app://x/{a b}", 9, /"a b" at position 9, which is not a variable name/],
    ["app://x/{id:0}", 9, /"id:0" at position 9/],
    ["app://x/ {id}", 8, /" " at position 8, which a template's literal text does not allow/],
    ["app://x/100%{id}", 11, /"%" at position 11 without two hex digits/],
  ];
  for (const [template, index, message] of cases) {
    it(`${template}: position ${index}`, () => {
      const parsed = parseTemplate(template);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.equal(parsed.index, index);
      assert.match(parsed.message, message);
    });
  }

  it("takes non-ASCII letters and the apostrophe as literals", () => {
    assert.equal(parseTemplate("app://café/{id}").ok, true);
    assert.equal(parseTemplate("app://o'brien/{id}").ok, true);
  });
});

describe("RFC 6570 levels (section 1.2): the lowest an expander must support", () => {
  const cases: [template: string, level: number][] = [
    ["app://customers_index", 1],
    ["app://customers_show/{id}", 1],
    ["app://files/{+path}", 2],
    ["app://page{#section}", 2],
    ["app://customers_index{?direction,page}", 3],
    ["app://orders_over/{min}{?status}", 3],
    ["app://map/{x,y}", 3],
    ["app://x{/segments*}", 4],
    ["app://x/{name:3}", 4],
  ];
  for (const [template, level] of cases) {
    it(`${template} is level ${level}`, () => {
      const parsed = parseTemplate(template);
      assert.ok(parsed.ok);
      assert.equal(templateLevel(parsed.parts), level);
    });
  }
});
