import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { customers_show } from "../../example/commands/customers.ts";
import * as customers from "../../example/commands/customers.ts";
import * as orders from "../../example/commands/orders.ts";
import catalog from "../../generated/catalog.json" with { type: "json" };
import { createProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { formatDiagnostics } from "../../packages/livecmd-kit/generator/output/formatDiagnostics.ts";
import { generate } from "../../packages/livecmd-kit/generator/pipeline.ts";
import { defineApp, type AppDefinition } from "../../packages/livecmd/runtime/model/app.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { listings, type Catalog } from "../../packages/livecmd/runtime/model/catalog.ts";
import { resultText, versionOf } from "../../packages/livecmd/runtime/live/resultVersion.ts";
import {
  DEFAULT_WATCH_TOOL,
  watchToolEntry,
} from "../../packages/livecmd/runtime/model/watchTool.ts";
import { catalogDrift } from "../../packages/livecmd/runtime/server/policy/catalogDrift.ts";
import { root, scratchDir } from "../helpers/cli.ts";

const COMMANDS = { ...customers, ...orders };

function app(agent: Partial<AppDefinition["agent"]> = {}) {
  return defineApp({
    name: "app",
    commands: COMMANDS,
    agent: { grant: [customers_show], ...agent },
  });
}

describe("the watch tool's name (agent.watchTool)", () => {
  const cases: [string, AppDefinition["agent"]["watchTool"], string | undefined][] = [
    ["is watch_resources when the app names none", undefined, DEFAULT_WATCH_TOOL],
    ["is the app's own", "keep_an_eye", "keep_an_eye"],
    ["is none for false", false, undefined],
  ];
  for (const [rule, setting, served] of cases)
    it(rule, () => assert.equal(engineOf(app({ watchTool: setting })).watchTool, served));

  it("is refused when a command has it, with what to do", () => {
    assert.throws(
      () => app({ watchTool: "customers_show" }),
      /^Error: livecmd: the watch tool and command customers_show have one name; set agent.watchTool to another name \(or false, to serve no watch tool\)$/,
    );
  });

  it("is refused when tools/list could not hold it", () => {
    assert.throws(
      () => app({ watchTool: "watch them" }),
      /agent.watchTool "watch them" is not a tool name: 1 to 128 letters, digits, "_", "-" or "."/,
    );
  });
});

describe("the watch tool in the listings", () => {
  const commands = (catalog as unknown as Catalog).commands;
  const entry = watchToolEntry(DEFAULT_WATCH_TOOL);

  it("is listed, in name order among the tools, when a granted command can be read", () => {
    const tools = listings(commands, (command) => command.granted, entry).tools.map((t) => t.name);
    assert.equal(tools.at(-1), "watch_resources");
    assert.deepEqual(tools, [...tools].sort());
  });

  it("is not listed when no granted command can be read, nor when the app serves none", () => {
    const writesOnly = (command: { live: boolean }) => !command.live;
    assert.ok(
      !listings(commands, writesOnly, entry).tools.some((tool) => tool.name === entry.name),
    );
    assert.ok(
      !listings(commands, (command) => command.granted, null).tools.some(
        (tool) => tool.name === entry.name,
      ),
    );
  });
});

describe("catalog drift of the watch tool", () => {
  const recorded = catalog as unknown as Catalog;
  const cases: [string, Partial<AppDefinition["agent"]>, Partial<Catalog>, string | undefined][] = [
    ["agrees with the catalog codegen wrote", {}, {}, undefined],
    [
      "is renamed in the app since codegen",
      { watchTool: "keep_an_eye" },
      {},
      "the watch tool is named keep_an_eye in the app, watch_resources in catalog.json",
    ],
    [
      "is withheld in the app since codegen",
      { watchTool: false },
      {},
      "catalog.json lists the watch tool watch_resources, which the app no longer serves (agent.watchTool: false)",
    ],
    [
      "is served, but catalog.json lists none",
      {},
      { watchTool: null },
      "the app serves the watch tool watch_resources, which catalog.json does not list",
    ],
    [
      "is described as another livecmd described it",
      {},
      { watchTool: { ...watchToolEntry(DEFAULT_WATCH_TOOL), description: "Older words." } },
      "catalog.json lists the watch tool watch_resources as another version of livecmd described it",
    ],
  ];
  for (const [rule, agent, catalogChange, expected] of cases)
    it(rule, () => {
      const drift = catalogDrift(
        engineOf(defineApp({ name: "app", commands: COMMANDS, agent: { grant: [], ...agent } })),
        { ...recorded, ...catalogChange },
      ).filter((line) => line.includes("watch tool"));
      assert.deepEqual(drift, expected === undefined ? [] : [expected]);
    });
});

describe("versions", () => {
  it("are one for equal results, another for any other, and the same text a read sends", () => {
    assert.equal(versionOf(resultText({ a: 1 })), versionOf('{"a":1}'));
    assert.notEqual(versionOf(resultText({ a: 1 })), versionOf(resultText({ a: 2 })));
    assert.equal(resultText(undefined), "null");
    assert.match(versionOf("null"), /^[A-Za-z0-9_-]{22}$/);
  });
});

describe("codegen reads agent.watchTool and description as literals", () => {
  async function generated(agentExtra: string, top = "") {
    const dir = await scratchDir("watch-tool-");
    const file = path.join(dir, "app.ts");
    await writeFile(
      file,
      `import { command, defineApp, type Int } from "livecmd";
/** One thing by id. */
export const thing_show = command({ live: true }, async (_ctx, id: Int) => ({ id }));
export default defineApp({
  name: "app",${top}
  commands: { thing_show },
  agent: { grant: [thing_show]${agentExtra} },
});
`,
    );
    return generate(createProject(), { appFile: path.relative(root, file), cwd: root });
  }

  it("writes the watch tool the app names into catalog.json, and null for false", async () => {
    const named = await generated(`, watchTool: "keep_an_eye"`);
    assert.ok(named.ok);
    assert.equal(named.plan.catalog.watchTool?.name, "keep_an_eye");
    assert.match(
      named.outputs.get("skills/app/SKILL.md")!,
      /call the `keep_an_eye` tool in a loop/,
    );
    const none = await generated(", watchTool: false");
    assert.ok(none.ok);
    assert.equal(none.plan.catalog.watchTool, null);
    assert.doesNotMatch(none.outputs.get("skills/app/SKILL.md")!, /in a loop/);
  });

  const refusals: [string, string, string, RegExp][] = [
    [
      "a command's name",
      `, watchTool: "thing_show"`,
      "",
      /error CG005: the watch tool and command thing_show have one name/,
    ],
    [
      "no tool name",
      `, watchTool: "a b"`,
      "",
      /error CG010: agent.watchTool "a b" is not a tool name/,
    ],
    [
      "not a literal",
      `, watchTool: String(1)`,
      "",
      /error CG011: agent.watchTool must be a string literal/,
    ],
    [
      "a description not a literal",
      "",
      `\n  description: String(1),`,
      /error CG011: the app's description must be a string literal/,
    ],
  ];
  for (const [what, agentExtra, top, message] of refusals)
    it(`refuses ${what}, at its place`, async () => {
      const generation = await generated(agentExtra, top);
      assert.ok(!generation.ok);
      assert.match(formatDiagnostics(generation.diagnostics), message);
    });
});
