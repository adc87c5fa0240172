import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { root } from "../helpers/cli.ts";
import { docBlocks, transcript, type DocBlock } from "../helpers/docBlocks.ts";
import { docsProject, freePort, linesInOrder, type DocsProject } from "../helpers/docsProject.ts";

/*
 * Every shell and TypeScript block of README.md and docs/mcp.md runs here, in a scratch project
 * of the example app (test/helpers/docsProject.ts), so a claim that stops being true fails CI.
 * TypeScript blocks are type-checked together, then each runs; a shell block runs with bash and
 * must succeed, and a transcript (`$ command`, then what it prints) must print what it shows. A
 * block that cannot run here says so in the markdown (`<!-- docs-test: skip: why -->`), and this
 * test lists it with why.
 */

const DOCS = ["README.md", "docs/mcp.md"];
const BLOCKS = DOCS.flatMap((file) => docBlocks(root, file));
const TIMEOUT_MS = 120_000;

/** The file a TypeScript block is written to: `doc-mcp-1160.ts`. */
function fileOf(block: DocBlock): string {
  const [file, line] = block.at.split(":");
  return `doc-${file!
    .replace(/^docs\//, "")
    .replace(/\.md$/, "")
    .toLowerCase()}-${line}.ts`;
}

/** `3000` in a block that serves, or is served to, is the port it really has. */
function onPort(text: string, port: number): string {
  return text.replace(/\b3000\b/g, String(port));
}

describe("the docs' blocks, run", () => {
  let project: DocsProject;
  let served: { port: number; stop(): Promise<void> } | undefined;
  const needsServer = BLOCKS.some((block) => block.directive.kind === "serve");

  before(async () => {
    project = await docsProject();
    if (needsServer) served = await project.serveHttp();
    for (const block of BLOCKS) {
      const { kind } = block.directive;
      if (block.language !== "ts" || kind === "skip") continue;
      await project.write(
        fileOf(block),
        kind === "serve" ? onPort(block.text, served!.port) : block.text,
      );
    }
  });
  after(async () => {
    await served?.stop();
    await project?.remove();
  });

  it("lists each block that cannot run here, and why", (t) => {
    const skipped = BLOCKS.filter((block) => block.directive.kind === "skip");
    for (const block of skipped)
      t.diagnostic(`${block.at} (${block.language}): ${(block.directive as { why: string }).why}`);
    for (const block of skipped)
      assert.ok((block.directive as { why: string }).why.length > 10, `${block.at}: say why`);
  });

  it("type-checks every TypeScript block that runs, against the packages as installed", async () => {
    const checked = await project.typecheck();
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  });

  for (const block of BLOCKS) {
    const { directive } = block;
    if (directive.kind === "skip") continue;
    it(`${block.at} (${block.language}${directive.kind === "run" ? "" : `, ${directive.kind}`})`, async () => {
      if (block.language === "ts") {
        const ran = await project.typescript(fileOf(block), TIMEOUT_MS);
        assert.equal(ran.code, 0, ran.stdout + ran.stderr);
        return;
      }
      const port = directive.kind === "serve" ? served!.port : await freePort();
      const text = directive.kind === "run" ? block.text : onPort(block.text, port);
      const steps = transcript(text);
      if (directive.kind === "until-shown") {
        const [step, ...more] = steps ?? [];
        assert.ok(step && more.length === 0, "until-shown: one `$ command`, then what it prints");
        const { command, shown } = step;
        const ran = await project.untilShown(command, shown, TIMEOUT_MS);
        assert.ok(linesInOrder(ran.stdout + ran.stderr, shown), ran.stdout + ran.stderr);
        return;
      }
      for (const { command, shown } of steps ?? [{ command: text, shown: [] }]) {
        const ran = await project.shell(command, TIMEOUT_MS);
        assert.equal(ran.code, 0, `${command}\n${ran.stdout}${ran.stderr}`);
        assert.ok(linesInOrder(ran.stdout + ran.stderr, shown), ran.stdout + ran.stderr);
      }
    });
  }
});
