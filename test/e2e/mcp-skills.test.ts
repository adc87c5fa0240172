import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { createExampleApp } from "../../example/app.ts";
import { listFiles } from "../../packages/livecmd-kit/generator/output/writeOutputs.ts";
import { loadSkills } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { root } from "../helpers/cli.ts";
import { servedExample, type Era } from "../helpers/servedExample.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

const SKILLS = path.join(root, "generated/skills");
const SKILL_MD = "skill://app/SKILL.md";

/** Every `app://` URI the skill's pages write in a code span: its worked examples. */
async function exampleUris(): Promise<string[]> {
  const uris = new Set<string>();
  for (const file of await listFiles(SKILLS)) {
    const text = await readFile(path.join(SKILLS, file), "utf8");
    for (const [, span] of text.matchAll(/`(app:\/\/[^`]+)`/g))
      if (!span!.includes("{")) uris.add(span!);
    for (const [, uri] of text.matchAll(/"uri": "(app:\/\/[^"]+)"/g)) uris.add(uri!);
  }
  return [...uris].sort();
}

for (const era of PROTOCOLS satisfies readonly Era[]) {
  for (const transport of ["stdio", "http"] as const) {
    it(`\`livecmd serve\` over ${transport} (${era}) serves the generated skill: skills/list, skills/get, its files verified`, async () => {
      const served = await servedExample(era, transport);
      try {
        const skills = new SkillsClient(served.client);
        assert.equal(skills.supported, true);
        const { skills: listed } = await skills.list();
        assert.deepEqual(
          listed.map((skill) => [skill.uri, skill.frontmatter.name]),
          [[SKILL_MD, "app"]],
        );
        const { skill } = await skills.get(SKILL_MD);
        const files = await listFiles(path.join(SKILLS, "app"));
        assert.deepEqual(
          (skill.resources as { uri: string }[]).map((file) => file.uri),
          files.map((file) => `skill://app/${file}`),
        );
        for (const file of files) {
          const read = await skills.read(skill, file);
          assert.equal(read.verified, true, file);
          assert.equal(read.text, await readFile(path.join(SKILLS, "app", file), "utf8"), file);
        }
        const manifest = await skills.read(skill);
        assert.match(manifest.body!, /^\n# app\n/);
        assert.ok(
          (await served.client.listResources()).resources.some((each) => each.uri === SKILL_MD),
          "resources/list names the SKILL.md, after the app's resources",
        );
      } finally {
        await served.close();
      }
    });
  }
}

describe("the skill's worked examples", () => {
  it("are URIs the server reads, every one of them", async () => {
    const uris = await exampleUris();
    assert.ok(uris.length >= 9, `${uris.length} example URIs`);
    const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol: "2026-07-28" });
    for (const uri of uris) {
      const read = await mcp.read(uri);
      assert.equal(read.contents.length, 1, uri);
    }
    await mcp.close();
  });

  it("are the tool calls they say, with the same result as the read", async () => {
    const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol: "2026-07-28" });
    for (const file of await listFiles(path.join(SKILLS, "app/references"))) {
      const text = await readFile(path.join(SKILLS, "app/references", file), "utf8");
      for (const [, uri, tool, args] of text.matchAll(
        /^- `(app:\/\/[^`]+)`, or the tool `(\w+)` with `([^`]+)`$/gm,
      )) {
        const call = await mcp.call(tool!, JSON.parse(args!) as Record<string, unknown>);
        const read = await mcp.read(uri!);
        assert.equal(
          (call.content[0] as { text: string }).text,
          (read.contents[0] as { text: string }).text,
          `${uri} and ${tool}(${args})`,
        );
      }
    }
    await mcp.close();
  });
});

describe("skills served from code", () => {
  it("go through serveStdio's and serveHttp's `skills`, loaded with loadSkills", async () => {
    for (const transport of ["memory", "http"] as const) {
      const mcp = await testApp(createExampleApp(":memory:")).mcp({
        protocol: "2026-07-28",
        transport,
        skills: await loadSkills(SKILLS),
      });
      const { skills } = await new SkillsClient(mcp.client).list();
      assert.deepEqual(
        skills.map((skill) => skill.uri),
        [SKILL_MD],
      );
      await mcp.close();
    }
  });

  it("are resources a client may watch, as every listed one: a listen or subscription of SKILL.md is acknowledged on both eras and watches nothing", async () => {
    for (const protocol of PROTOCOLS)
      for (const transport of ["memory", "http"] as const) {
        const app = createExampleApp(":memory:");
        const mcp = await testApp(app).mcp({
          protocol,
          transport,
          skills: await loadSkills(SKILLS),
        });
        const show = "app://customers_show/1";
        const listening = await mcp.listen([SKILL_MD, show]);
        assert.deepEqual(
          [...listening.honored].sort(),
          [show, SKILL_MD].sort(),
          `${protocol} ${transport}`,
        );
        assert.equal(
          (await mcp.call("customers_rename", { id: 1, name: "Ada King" })).isError,
          undefined,
        );
        assert.equal(await listening.updates.next(), show);
        await mcp.close();
      }
  });

  it("are not served when not given", async () => {
    const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol: "2026-07-28" });
    assert.equal(new SkillsClient(mcp.client).supported, false);
    assert.ok((await mcp.resources()).every((each) => !each.uri.startsWith("skill://")));
    await mcp.close();
  });
});
