/**
 * `npm run fuzz`: the parse and resources/read properties of the reliability suite, at scale.
 *
 *   npm run fuzz                                  # 1,000,000 parse cases, 20,000 reads over MCP
 *   npm run fuzz -- --parse 200000 --mcp 5000 --seed 42
 *
 * Parse: every generated parser, on arbitrary strings, near misses of valid URIs and valid URIs:
 * never throws; answers variables or a non-empty list of errors naming the template's fields or
 * `uri`; what it accepts re-expands to a URI that parses to the same variables.
 * MCP (in memory, both eras): every read is a result or a JSON-RPC error; -32602 carries exactly
 * the parser's errors and never runs the command; -32603 only when the command ran.
 * Prints the counts and every failure (with fast-check's seed and counterexample); exits 1 on any.
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { ProtocolError } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { templates, type TemplateName } from "../../generated/templates.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { commandOf } from "../../packages/livecmd/runtime/uri/index.ts";
import { arbitraryUri, expand, mutatedUri, validUri } from "./support/arbitraries.ts";
import { countedExampleApp, PROTOCOLS } from "./support/exampleApp.ts";

const { values: options } = parseArgs({
  options: {
    parse: { type: "string", default: "1000000" },
    mcp: { type: "string", default: "20000" },
    seed: { type: "string" },
  },
});
const PARSE_RUNS = Number(options.parse);
const MCP_RUNS = Number(options.mcp);
const seed = options.seed === undefined ? Date.now() % 2 ** 31 : Number(options.seed);
const failures: string[] = [];
const anyUri = fc.oneof(arbitraryUri, mutatedUri, validUri);

function templateOf(uri: string): [TemplateName, (typeof templates)[TemplateName]] | undefined {
  const name = commandOf(uri, "app") as TemplateName | undefined;
  return name !== undefined && Object.hasOwn(templates, name) ? [name, templates[name]] : undefined;
}

function checkParse(uri: string, counts: Record<string, number>): void {
  const found = templateOf(uri);
  // A URI of no template goes to every parser: each must refuse it without throwing.
  const targets = found
    ? [found]
    : (Object.entries(templates) as [TemplateName, (typeof templates)[TemplateName]][]);
  for (const [name, template] of targets) {
    const parsed = template.parse(uri);
    if (!parsed.ok) {
      counts.rejected = (counts.rejected ?? 0) + 1;
      assert.ok(parsed.errors.length > 0, "a rejection names at least one error");
      const fields = new Set(["uri", ...template.variables.map((variable) => variable.name)]);
      for (const error of parsed.errors)
        assert.ok(fields.has(error.field) && error.message.length > 0, JSON.stringify(error));
      continue;
    }
    counts.accepted = (counts.accepted ?? 0) + 1;
    assert.deepStrictEqual(
      template.parse(expand(name, parsed.vars as Record<string, unknown>)),
      parsed,
    );
  }
}

async function fuzzParse(): Promise<void> {
  const counts: Record<string, number> = {};
  const started = performance.now();
  const result = fc.check(
    fc.property(anyUri, (uri) => checkParse(uri, counts)),
    { numRuns: PARSE_RUNS, seed },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `parse: ${result.numRuns} cases in ${seconds} s (${counts.accepted ?? 0} accepted, ${counts.rejected ?? 0} rejected)`,
  );
  if (result.failed) failures.push(`parse: ${fc.defaultReportMessage(result)}`);
}

async function fuzzMcp(): Promise<void> {
  for (const protocol of PROTOCOLS) {
    const counted = countedExampleApp();
    const mcp = await testApp(counted.app).mcp({ protocol });
    const counts: Record<string, number> = {};
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(anyUri, async (uri) => {
        counted.runs.length = 0;
        const found = templateOf(uri);
        const parsed = found?.[1].parse(uri);
        const answer = await mcp.read(uri).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (answer === undefined) {
          counts.read = (counts.read ?? 0) + 1;
          assert.equal(counted.runs.length, 1);
          return;
        }
        assert.ok(answer instanceof ProtocolError, String(answer));
        counts[answer.code] = (counts[answer.code] ?? 0) + 1;
        if (answer.code === -32603)
          return assert.equal(counted.runs.length, 1, "-32603 only from a command that ran");
        assert.equal(answer.code, -32602, answer.message);
        assert.equal(counted.runs.length, 0, "a refused URI never runs the command");
        if (parsed && !parsed.ok)
          assert.deepStrictEqual((answer.data as { errors: unknown }).errors, parsed.errors);
      }),
      { numRuns: Math.ceil(MCP_RUNS / PROTOCOLS.length), seed },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `resources/read (${protocol}, in memory): ${result.numRuns} reads in ${seconds} s ${JSON.stringify(counts)}`,
    );
    if (result.failed)
      failures.push(`resources/read (${protocol}): ${fc.defaultReportMessage(result)}`);
    await mcp.close();
  }
}

console.log(`fuzz: seed ${seed}`);
if (PARSE_RUNS > 0) await fuzzParse();
if (MCP_RUNS > 0) await fuzzMcp();
if (failures.length > 0) {
  console.error(`\n${failures.length} failure(s):\n${failures.join("\n\n")}`);
  process.exitCode = 1;
} else console.log("no failure");
