import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsedBodyText } from "../../packages/livecmd/runtime/server/http/parsedBody.ts";

/** Deeper than `JSON.stringify` can write: `parsedBodyText` writes it level by level. */
const DEEP = 20_000;

/** JSON texts as a parser reads them, each already in `JSON.stringify`'s compact form. */
const TEXTS: [string, string][] = [
  ["scalars", `[1,-0.5,1e+21,"a\\"b\\\\c\\n",true,false,null]`],
  ["an object's keys in order, escaped", `{"b":1,"a":{"\\u0001":[],"é":{}},"":null}`],
  ["a lone surrogate, escaped as JSON.stringify does", `["\\ud800"]`],
  ["empty containers", `[[],{},[{}]]`],
  ["objects in objects", `${'{"a":'.repeat(DEEP)}[1,"x"]${"}".repeat(DEEP)}`],
];

describe(`parsedBodyText writes a parsed body back as the text it was parsed from, nested up to ${DEEP} deep`, () => {
  for (const [what, text] of TEXTS) {
    it(what, () => {
      const deep = `${"[".repeat(DEEP)}${text}${"]".repeat(DEEP)}`;
      assert.equal(parsedBodyText(JSON.parse(text)), text);
      assert.equal(parsedBodyText(JSON.parse(deep)), deep);
    });
  }
});
