import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client, JSONRPCMessage } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { createExampleApp } from "../../example/app.ts";
import { loadSkills } from "../../packages/livecmd/runtime/server/index.ts";
import { MAX_ERROR_ANSWER } from "../../packages/livecmd/runtime/server/errors/protocolErrors.ts";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";
import { ERROR_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";
import { root } from "../helpers/cli.ts";

/** 1 MiB of one character: what a client may put in any string field of a request. */
const HUGE = "x".repeat(2 ** 20);
/** How a cut echo ends (`cutText`): its first characters, then its length. */
const CUT = /… \(10485\d\d characters\)/;
const TEMPLATE = "app://customers_show/{id}";

/**
 * Each field a client's string comes back in when the request is refused, and the request.
 * `inHeader`: on 2026-07-28 over HTTP the field travels in the `Mcp-Name` header too, which no
 * client can make 1 MiB long (Node refuses headers past 16 KiB before anything reads them).
 */
const FIELDS: readonly {
  field: string;
  send: (client: Client) => Promise<unknown>;
  inHeader?: true;
}[] = [
  {
    field: "an unknown tool's name",
    send: (c) => c.callTool({ name: HUGE, arguments: {} }),
    inHeader: true,
  },
  {
    field: "a tools/call argument key",
    send: (c) => c.callTool({ name: "customers_show", arguments: { id: 1, [HUGE]: 1 } }),
  },
  { field: "a tools/list cursor", send: (c) => c.listTools({ cursor: HUGE }) },
  {
    field: "a completion argument name",
    send: (c) =>
      c.complete({
        ref: { type: "ref/resource", uri: TEMPLATE },
        argument: { name: HUGE, value: "" },
      }),
  },
  {
    field: "a completion ref.uri",
    send: (c) =>
      c.complete({ ref: { type: "ref/resource", uri: HUGE }, argument: { name: "id", value: "" } }),
  },
  {
    field: "a completion prompt's name",
    send: (c) =>
      c.complete({ ref: { type: "ref/prompt", name: HUGE }, argument: { name: "id", value: "" } }),
  },
  {
    field: "a URI naming no command",
    send: (c) => c.readResource({ uri: `app://nowhere/${HUGE}` }),
    inHeader: true,
  },
  { field: "a skills/get URI", send: (c) => new SkillsClient(c).get(`skill://${HUGE}`) },
  {
    field: "a resources/directory/read URI",
    send: (c) => new SkillsClient(c).readDirectory(`skill://${HUGE}`),
  },
  {
    field: "a skill file's URI",
    send: (c) => c.readResource({ uri: `skill://app/${HUGE}` }),
    inHeader: true,
  },
  {
    field: "a URI given to the watch tool",
    send: (c) =>
      c.callTool({
        name: "watch_resources",
        arguments: { resources: [{ uri: `app://nowhere/${HUGE}` }] },
      }),
  },
];

/** The answers the client's transport receives, as they arrive, before the SDK reads them. */
function answersOf(mcp: McpTestClient): JSONRPCMessage[] {
  const answers: JSONRPCMessage[] = [];
  const transport = mcp.client.transport!;
  const deliver = transport.onmessage!.bind(transport);
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    if ("id" in message && !("method" in message)) answers.push(message);
    (deliver as (message: JSONRPCMessage, extra?: unknown) => void)(message, extra);
  };
  return answers;
}

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    describe(`every error answer is within ${MAX_ERROR_ANSWER} characters, whatever a field carries (${protocol}, ${transport})`, () => {
      let mcp: McpTestClient;
      let answers: JSONRPCMessage[];
      before(async () => {
        mcp = await testApp(createExampleApp(":memory:")).mcp({
          protocol,
          transport,
          // The skill codegen wrote for the example: its requests quote a URI too.
          skills: await loadSkills(path.join(root, "generated/skills")),
        });
        answers = answersOf(mcp);
      });
      after(() => mcp.close());

      for (const { field, send, inHeader } of FIELDS) {
        const skip = inHeader && protocol === "2026-07-28" && transport === "http";
        it(`1 MiB in ${field}: the answer quotes it cut`, { skip }, async () => {
          answers.length = 0;
          const error = await send(mcp.client).then(
            (result) => result as { isError?: boolean },
            (failure: unknown) => failure,
          );
          assert.ok(
            error instanceof Error || (error as { isError?: boolean }).isError === true,
            `expected a refusal, got ${JSON.stringify(error).slice(0, 200)}`,
          );
          assert.equal(answers.length, 1);
          const text = JSON.stringify(answers[0]);
          assert.ok(text.length <= MAX_ERROR_ANSWER, `${text.length} characters`);
          assert.match(text, CUT, "the answer says how long the cut value was");
        });
      }

      it("10,000 unknown argument keys: the tool error names the first and counts the rest", async () => {
        answers.length = 0;
        const keys = Object.fromEntries(
          Array.from({ length: 10_000 }, (_, at) => [`key_${at}_${"y".repeat(100)}`, at]),
        );
        const result = (await mcp.client.callTool({
          name: "customers_show",
          arguments: { id: 1, ...keys },
        })) as { isError?: boolean; content: { text: string }[]; _meta?: Record<string, unknown> };
        assert.equal(result.isError, true);
        assert.ok(JSON.stringify(answers[0]).length <= MAX_ERROR_ANSWER);
        assert.match(
          result.content[0]!.text,
          /^Invalid arguments for customers_show: key_0_y+: is not a parameter of this command; .*; and \d+ more; change them/,
        );
        const { errors, more } = result._meta![ERROR_META_KEY] as {
          errors: unknown[];
          more: number;
        };
        assert.equal(errors.length + more, 10_000);
      });

      it("60 long URIs the watch tool cannot watch: the tool error names the first and counts the rest", async () => {
        answers.length = 0;
        const resources = Array.from({ length: 60 }, (_, at) => ({
          uri: `app://nowhere/${at}-${"z".repeat(10_000)}`,
        }));
        const result = (await mcp.client.callTool({
          name: "watch_resources",
          arguments: { resources },
        })) as { isError?: boolean; content: { text: string }[]; _meta?: Record<string, unknown> };
        assert.equal(result.isError, true);
        assert.ok(JSON.stringify(answers[0]).length <= MAX_ERROR_ANSWER);
        assert.match(
          result.content[0]!.text,
          /^Cannot watch these 60 URIs, so nothing is watched: app:\/\/nowhere\/0-z+… \(10016 characters\): .*; and \d+ more\. Watch only/,
        );
        const { errors, more } = result._meta![ERROR_META_KEY] as {
          errors: unknown[];
          more: number;
        };
        assert.equal(errors.length + more, 60);
      });
    });
  }
}
