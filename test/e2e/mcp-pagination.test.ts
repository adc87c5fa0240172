import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { createSyntheticApp } from "./fixtures/syntheticApp.ts";

const ENTRIES = 340;
const expectedNames = Array.from(
  { length: ENTRIES },
  (_, i) => `cmd_${String(i).padStart(3, "0")}`,
);

type Listing = "tools" | "resources" | "templates";

/** One page of a listing, by hand, so the test sees every cursor. */
async function page(mcp: McpTestClient, listing: Listing, cursor: string | undefined) {
  const params = cursor === undefined ? {} : { cursor };
  if (listing === "tools") {
    const result = await mcp.client.request({ method: "tools/list", params });
    return {
      names: (result.tools as { name: string }[]).map((t) => t.name),
      nextCursor: result.nextCursor as string | undefined,
    };
  }
  const result =
    listing === "resources"
      ? await mcp.client.request({ method: "resources/list", params })
      : await mcp.client.request({ method: "resources/templates/list", params });
  const items = (listing === "resources" ? result.resources : result.resourceTemplates) as {
    name: string;
  }[];
  return {
    names: items.map((item) => item.name),
    nextCursor: result.nextCursor as string | undefined,
  };
}

async function walk(
  mcp: McpTestClient,
  listing: Listing,
): Promise<{ names: string[]; pages: number[] }> {
  const names: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(mcp, listing, cursor);
    names.push(...next.names);
    pages.push(next.names.length);
    cursor = next.nextCursor;
  } while (cursor !== undefined);
  return { names, pages };
}

for (const protocol of PROTOCOLS) {
  describe(`pagination on ${protocol}`, () => {
    for (const listing of ["tools", "resources", "templates"] as const) {
      // The tools are the commands and, in name order after them here, the watch tool.
      const listed = listing === "tools" ? [...expectedNames, "watch_resources"] : expectedNames;
      it(`walks all ${listed.length} ${listing} at 100 a page, in name order`, async () => {
        const mcp = await testApp(createSyntheticApp(ENTRIES)).mcp({ protocol, pageSize: 100 });
        const { names, pages } = await walk(mcp, listing);
        assert.deepEqual(pages, [100, 100, 100, listed.length - 300]);
        assert.deepEqual(names, listed);
        await mcp.close();
      });
    }

    it("gives the SDK client's own page walk every entry", async () => {
      const mcp = await testApp(createSyntheticApp(ENTRIES)).mcp({ protocol, pageSize: 100 });
      assert.equal((await mcp.templates()).length, ENTRIES);
      assert.equal((await mcp.resources()).length, ENTRIES);
      assert.equal((await mcp.tools()).length, ENTRIES + 1, "the commands and the watch tool");
      await mcp.close();
    });

    const forged = [
      ["not base64url", "not a cursor!"],
      ["empty", ""],
      ["an offset in plain text", Buffer.from("100").toString("base64url")],
      [
        "an unknown format version",
        Buffer.from(JSON.stringify({ v: 2, o: 100, f: "x" })).toString("base64url"),
      ],
      [
        "a negative offset",
        Buffer.from(JSON.stringify({ v: 1, o: -1, f: "x" })).toString("base64url"),
      ],
    ] as const;
    for (const [what, cursor] of forged) {
      it(`rejects a forged cursor (${what}) with -32602`, async () => {
        const mcp = await testApp(createSyntheticApp(ENTRIES)).mcp({ protocol });
        const error = await protocolError(page(mcp, "templates", cursor), -32602);
        assert.match(error.message, /^Invalid cursor .*never issued it/);
        assert.deepEqual(error.data, { cursor });
        await mcp.close();
      });
    }

    it("rejects a cursor of a listing that changed since (revoke) as stale", async () => {
      const app = createSyntheticApp(ENTRIES);
      const mcp = await testApp(app).mcp({ protocol });
      const first = await page(mcp, "templates", undefined);
      app.revoke(app.commands.get("cmd_005")!);
      const error = await protocolError(page(mcp, "templates", first.nextCursor), -32602);
      assert.match(error.message, /^Stale cursor .*the list changed since it was issued/);
      await mcp.close();
    });

    it("rejects a cursor of another listing", async () => {
      const mcp = await testApp(createSyntheticApp(ENTRIES)).mcp({ protocol });
      const tools = await page(mcp, "tools", undefined);
      await protocolError(page(mcp, "resources", tools.nextCursor), -32602);
      await mcp.close();
    });
  });
}
