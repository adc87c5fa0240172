import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ProtocolError } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { templates } from "../../generated/templates.ts";
import { commandOf } from "../../packages/livecmd/runtime/uri/index.ts";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import {
  arbitraryUri,
  expand,
  mutatedUri,
  TEMPLATE_NAMES,
  validUri,
  variablesOf,
} from "./support/arbitraries.ts";
import { countedExampleApp, PROTOCOLS, readText } from "./support/exampleApp.ts";
import { ERROR_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";

/** Cases per template and era for read == call (2 requests each), and per era for garbage reads. */
const DIFFERENTIAL_RUNS = 100;
const GARBAGE_RUNS = 600;

/**
 * How a request ended, in terms both paths share: the result's JSON, the command's message, or
 * the fields the published schema refused (a read's -32602, a call's -32602: the command never ran).
 */
type Outcome =
  { ok: true; json: string } | { ok: false; message: string } | { ok: false; refused: string[] };

function refusedFields(error: ProtocolError): string[] {
  return (error.data as { errors: { field: string }[] }).errors
    .map((fieldError) => fieldError.field)
    .sort();
}

/** `ran`: whether the command ran; a -32602 after it ran is its own refusal (`InvalidArguments`). */
async function readOutcome(mcp: McpTestClient, uri: string, ran: () => boolean): Promise<Outcome> {
  try {
    return { ok: true, json: readText(await mcp.read(uri)) };
  } catch (error) {
    assert.ok(
      error instanceof ProtocolError && (error.code === -32603 || error.code === -32602),
      `read ${uri}: ${String(error)}`,
    );
    if (error.code === -32603) return { ok: false, message: error.message };
    if (!ran()) return { ok: false, refused: refusedFields(error) };
    const { errors } = error.data as { errors: { field: string; message: string }[] };
    return {
      ok: false,
      message: errors.map((fieldError) => `${fieldError.field}: ${fieldError.message}`).join("; "),
    };
  }
}

/**
 * `ran`: whether the command ran. Arguments the schema refuses are a tool error naming the
 * fields (SEP-1303), in `_meta[ERROR_META_KEY].errors` as a read's `data.errors`; before the run.
 */
async function callOutcome(
  mcp: McpTestClient,
  tool: string,
  args: Record<string, unknown>,
  ran: () => boolean,
): Promise<Outcome> {
  let result;
  try {
    result = await mcp.call(tool, args);
  } catch (error) {
    assert.ok(
      error instanceof ProtocolError && error.code === -32602,
      `call ${tool}: ${String(error)}`,
    );
    return { ok: false, refused: refusedFields(error) };
  }
  const [content] = result.content as { type: string; text: string }[];
  assert.equal(content?.type, "text");
  if (!result.isError) return { ok: true, json: content.text };
  if (!ran()) {
    const { errors } = result._meta![ERROR_META_KEY] as { errors: { field: string }[] };
    return { ok: false, refused: errors.map((fieldError) => fieldError.field).sort() };
  }
  // The command's own refusal names the same fields as a read's data.errors, in a sentence.
  const refusal = new RegExp(
    `^Invalid arguments for ${tool}: (.*); change them and call ${tool} again$`,
  ).exec(content.text);
  return { ok: false, message: refusal ? refusal[1]! : content.text };
}

for (const protocol of PROTOCOLS) {
  describe(`read(uri) == tools/call(args) for random valid values of every template (${protocol})`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol });
    });
    after(() => mcp.close());

    for (const name of TEMPLATE_NAMES) {
      it(`${name}: the handler gets the same arguments, and the agent the same result or the same error`, async () => {
        const outcomes = { ok: 0, failed: 0 };
        await fc.assert(
          fc.asyncProperty(variablesOf(name), async (vars) => {
            counted.runs.length = 0;
            const read = await readOutcome(mcp, expand(name, vars), () => counted.runs.length > 0);
            const runsBefore = counted.runs.length;
            const call = await callOutcome(mcp, name, vars, () => counted.runs.length > runsBefore);
            assert.deepStrictEqual(read, call);
            if ("refused" in read)
              assert.equal(counted.runs.length, 0, "a refused request runs nothing");
            else {
              assert.equal(counted.runs.length, 2, "both requests run the command once");
              assert.deepStrictEqual(counted.runs[0]!.args, counted.runs[1]!.args);
            }
            outcomes[read.ok ? "ok" : "failed"]++;
          }),
          { numRuns: DIFFERENTIAL_RUNS },
        );
        // A differential of errors only would prove little: most random values must read.
        assert.ok(
          outcomes.ok >= DIFFERENTIAL_RUNS / 4,
          `only ${outcomes.ok} of ${DIFFERENTIAL_RUNS} reads succeeded`,
        );
      });
    }
  });

  describe(`resources/read never breaks on arbitrary strings (${protocol})`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol });
    });
    after(() => mcp.close());

    it("answers every string with a result or a JSON-RPC error, the parser's own errors for a template's URI, and runs a command only on a valid URI", async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryUri, async (uri) => {
          counted.runs.length = 0;
          const name = commandOf(uri, "app");
          const template =
            name === undefined ? undefined : templates[name as keyof typeof templates];
          const parsed = template?.parse(uri);
          const answer = await mcp.read(uri).then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
          if ("result" in answer) {
            assert.ok(
              parsed?.ok || uri === "app://customers_index" || uri === "app://orders_flagged",
              `read ${uri} succeeded`,
            );
            assert.equal(counted.runs.length, 1);
            return;
          }
          const { error } = answer;
          assert.ok(
            error instanceof ProtocolError,
            `read ${JSON.stringify(uri)}: ${String(error)}`,
          );
          if (error.code === -32603) {
            assert.equal(counted.runs.length, 1, "-32603 only when the command ran and threw");
            return;
          }
          assert.equal(error.code, -32602, error.message);
          // A URI that does not parse never runs the command; one that parses may run once, and
          // be refused by the command itself (InvalidArguments: to before from).
          if (!parsed?.ok)
            assert.equal(counted.runs.length, 0, "a refused URI never runs the command");
          else assert.ok(counted.runs.length <= 1, "a URI runs its command at most once");
          const data = error.data as { uri: string; errors?: unknown };
          assert.equal(data.uri, uri);
          if (parsed && !parsed.ok) {
            const reported = data.errors as { field: string }[];
            assert.deepStrictEqual(
              reported.slice(0, parsed.errors.length),
              parsed.errors,
              "the server reports what the parser found, first",
            );
            // Then what the schema refuses of the variables that did convert, and only of those.
            for (const { field } of reported.slice(parsed.errors.length))
              assert.ok(
                Object.hasOwn(("vars" in parsed && parsed.vars) || {}, field) &&
                  !parsed.errors.some((error) => error.field === field),
                `a schema error only for a variable the parser read: ${field}`,
              );
          }
        }),
        { numRuns: GARBAGE_RUNS },
      );
    });

    it("keeps answering after a concurrent burst of garbage reads", async () => {
      const garbage = fc.sample(arbitraryUri, { numRuns: 300, seed: 7 });
      const answers = await Promise.allSettled(garbage.map((uri) => mcp.read(uri)));
      for (const answer of answers) {
        if (answer.status === "rejected")
          assert.ok(answer.reason instanceof ProtocolError, String(answer.reason));
      }
      const customer = JSON.parse(readText(await mcp.read("app://customers_show/3"))) as {
        id: number;
      };
      assert.equal(customer.id, 3);
    });
  });
}

describe("parse gives canonical variables", () => {
  it("re-expanding what any string parsed to parses to the same variables", () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(validUri, mutatedUri, arbitraryUri), (uri) => {
        const name = commandOf(uri, "app") as keyof typeof templates | undefined;
        const template = name && templates[name];
        if (!template) return;
        const parsed = template.parse(uri);
        if (!parsed.ok) return;
        accepted++;
        assert.deepStrictEqual(
          template.parse(expand(name, parsed.vars as Record<string, unknown>)),
          parsed,
        );
      }),
      { numRuns: 3000 },
    );
    // About a third parse (the valid third, and some mutated ones; 1,020 to 1,080 in five runs):
    // a quarter is enough to show the property is not vacuous, and no random run falls below it.
    assert.ok(accepted > 750, `only ${accepted} strings parsed`);
  });
});
