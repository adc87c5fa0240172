import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SdkHttpError } from "@modelcontextprotocol/client";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { withFixtureGenerated } from "./fixtures/fixtureCatalog.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

/** Whatever a request answers, for methods the client's own registry has no result for. */
const ANY_RESULT = {
  "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
} as never;
import { createShopApp } from "./fixtures/shopApp.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";

function toolsOnlyApp() {
  const rename = command({}, (_ctx, id: number) => ({ id }));
  return withFixtureGenerated({ name: "app", commands: { rename }, agent: { grant: [rename] } }, [
    {
      name: "rename",
      shape: { kind: "positional", names: ["id"] },
      variables: [{ name: "id", in: "path", schema: { type: "integer" } }],
    },
  ]);
}

for (const protocol of PROTOCOLS) {
  describe(`discovery on ${protocol}`, () => {
    it("declares resources {subscribe, listChanged}, completions and tools at the handshake", async () => {
      const mcp = await testApp(createShopApp().app).mcp({ protocol });
      assert.deepEqual(mcp.client.getServerCapabilities(), {
        resources: { subscribe: true, listChanged: true },
        completions: {},
        tools: { listChanged: true },
      });
      await mcp.close();
    });

    for (const transport of ["memory", "http"] as const) {
      it(`answers tasks/* with -32601 over ${transport}: it declares no tasks (no 2026-07-28 tasks extension either)`, async () => {
        // The conformance alpha's -32021 is for a server that has the tasks extension, to a
        // request that did not declare it; a server without tasks has no such method.
        const mcp = await testApp(createShopApp().app).mcp({ protocol, transport });
        const methods =
          protocol === "2026-07-28"
            ? ["tasks/get", "tasks/update", "tasks/cancel"]
            : ["tasks/get", "tasks/list", "tasks/cancel", "tasks/result"];
        try {
          for (const method of methods) {
            const failure = await mcp.client
              .request({ method, params: { taskId: "t1" } } as never, ANY_RESULT)
              .then(
                () => assert.fail(`${method} answered`),
                (error: unknown) => error as Error & { code?: unknown },
              );
            // A 2026-07-28 -32601 over HTTP is a 404, which the SDK's client reports with the body.
            const code =
              failure instanceof SdkHttpError
                ? (JSON.parse(failure.message.replace(/^[^{]*/, "")) as { error: { code: number } })
                    .error.code
                : failure.code;
            assert.deepEqual({ method, code }, { method, code: -32601 });
          }
        } finally {
          await mcp.close();
        }
      });
    }

    it("declares no resources capability for an app with no live command", async () => {
      const mcp = await testApp(toolsOnlyApp()).mcp({ protocol });
      const capabilities = mcp.client.getServerCapabilities();
      assert.equal(capabilities?.resources, undefined);
      assert.deepEqual(capabilities?.tools, { listChanged: true });
      assert.deepEqual(
        (await mcp.tools()).map((tool) => tool.name),
        ["rename"],
      );
      await mcp.close();
    });

    it("lists plain resources only on resources/list, never a template string", async () => {
      const mcp = await testApp(createShopApp().app).mcp({ protocol });
      const resources = await mcp.resources();
      assert.deepEqual(
        resources.map((resource) => resource.uri),
        ["app://customers_index", "app://server_time"],
      );
      for (const resource of resources) assert.ok(!resource.uri.includes("{"), resource.uri);
      await mcp.close();
    });

    it("lists the templates of granted, live, unconfirmed commands in name order", async () => {
      const mcp = await testApp(createShopApp().app).mcp({ protocol });
      const templates = await mcp.templates();
      assert.deepEqual(
        templates.map((template) => [template.name, template.uriTemplate]),
        [
          ["customers_index", "app://customers_index{?direction,page,search,vip}"],
          ["customers_show", "app://customers_show/{id}"],
          ["quota_show", "app://quota_show/{id}"],
        ],
      );
      await mcp.close();
    });

    it("lists every granted command as a tool, with its inputSchema from the catalog, and the watch tool", async () => {
      const { app } = createShopApp();
      const mcp = await testApp(app).mcp({ protocol });
      const tools = await mcp.tools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        [
          "customers_delete",
          "customers_index",
          "customers_rename",
          "customers_show",
          "quota_show",
          "server_time",
          "watch_resources",
        ],
      );
      const show = engineOf(app).generated!.catalog.commands.find(
        (entry) => entry.name === "customers_show",
      )!;
      assert.deepEqual(
        tools.find((tool) => tool.name === "customers_show")?.inputSchema,
        show.inputSchema,
      );
      await mcp.close();
    });
  });
}

describe("cache hints", () => {
  it("marks 2026-07-28 listings public for a minute and live reads uncacheable", async () => {
    const mcp = await testApp(createShopApp().app).mcp({ protocol: "2026-07-28" });
    const bypass = { cacheMode: "bypass" } as const;
    const listings = [
      await mcp.client.listTools(undefined, bypass),
      await mcp.client.listResources(undefined, bypass),
      await mcp.client.listResourceTemplates(undefined, bypass),
    ];
    for (const listing of listings)
      assert.deepEqual([listing.ttlMs, listing.cacheScope], [60_000, "public"]);
    const read = await mcp.read("app://customers_show/1");
    assert.deepEqual([read.ttlMs, read.cacheScope], [0, "private"]);
    assert.deepEqual(
      [mcp.client.getDiscoverResult()?.ttlMs, mcp.client.getDiscoverResult()?.cacheScope],
      [60_000, "public"],
    );
    await mcp.close();
  });

  it("sends no cache fields on the 2025 era, which has none", async () => {
    const mcp = await testApp(createShopApp().app).mcp({ protocol: "2025-11-25" });
    const templates = await mcp.client.listResourceTemplates(undefined, { cacheMode: "bypass" });
    const read = await mcp.read("app://customers_show/1");
    for (const result of [templates, read])
      assert.deepEqual([result.ttlMs, result.cacheScope], [undefined, undefined]);
    await mcp.close();
  });
});

describe("an app without generated output", () => {
  it("is refused with what to run", async () => {
    const app = defineApp({ name: "app", commands: {}, agent: { grant: [] } });
    await assert.rejects(
      testApp(app).mcp({ protocol: "2026-07-28" }),
      /no generated catalog; run `npx livecmd codegen`/,
    );
  });

  const olderFormats = [
    [
      "the first format (listings stored beside the commands)",
      1,
      { app: "app", resources: [], resourceTemplates: [], tools: [], commands: [] },
    ],
    ["format 2 (no result schemas)", 2, { catalogVersion: 2, app: "app", commands: [] }],
    ["format 3 (no watch tool)", 3, { catalogVersion: 3, app: "app", commands: [] }],
  ] as const;
  for (const [label, version, catalog] of olderFormats) {
    it(`given a catalog.json of ${label}, is refused with what to run`, () => {
      assert.throws(
        () =>
          defineApp({
            name: "app",
            commands: {},
            agent: { grant: [] },
            generated: { catalog, templates: {} },
          }),
        new RegExp(
          `was given a catalog\\.json of format ${version}, and this livecmd reads format 4; run \`npx livecmd codegen\` to write it again`,
        ),
      );
    });
  }
});
