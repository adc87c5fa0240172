import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallToolResult, ResourceLink } from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import type { ResourceUri } from "../../packages/livecmd/runtime/uri/resourceUri.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { servedExample } from "../helpers/servedExample.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

const linksOf = (result: CallToolResult) =>
  result.content.filter((content): content is ResourceLink => content.type === "resource_link");

const showLink = (id: number) => ({
  type: "resource_link",
  uri: `app://customers_show/${id}`,
  name: "customers_show",
  title: "Customer",
  description:
    "One customer by id (e.g. 1), with their order count, order total, tags and attributes.",
  mimeType: "application/json",
});

for (const protocol of PROTOCOLS) {
  for (const transport of ["memory", "http"] as const) {
    describe(`links from writes (${protocol}, ${transport})`, () => {
      it("customers_create links the customer it made; the agent reads the link and watches it", async () => {
        const mcp = await testApp(createExampleApp(":memory:")).mcp({ protocol, transport });
        const created = await mcp.call("customers_create", {
          name: "Zed Shaw",
          email: "zed@example.com",
        });
        assert.equal(created.isError, undefined, JSON.stringify(created));
        assert.equal(created.content[0]!.type, "text");
        const { id } = created.structuredContent as { id: number };
        const [link] = linksOf(created);
        assert.deepEqual(link, showLink(id));
        const read = await mcp.read(link!.uri);
        assert.equal(JSON.parse((read.contents[0] as { text: string }).text).name, "Zed Shaw");

        const listening = await mcp.listen([link!.uri]);
        assert.deepEqual(listening.honored, [link!.uri]);
        const renamed = await mcp.call("customers_rename", { id, name: "Zed A. Shaw" });
        assert.deepEqual(
          linksOf(renamed).map((each) => each.uri),
          [link!.uri],
        );
        assert.equal(await listening.updates.next(), link!.uri);
        await listening.close();
        await mcp.close();
      });

      it("a link a read would refuse (ungranted, out of range, not a URI of the app) is left out and logged; the call still answers", async () => {
        const errors: Error[] = [];
        const app = createExampleApp(":memory:").use(async (invocation, next) => {
          const result = await next();
          if (invocation.command === "customers_rename")
            for (const uri of [
              "app://customers_export",
              "app://customers_show/0",
              "other://customers_show/1",
              "app://customers_show/1",
              "app://customers_show/1",
            ])
              invocation.link(uri as ResourceUri<unknown>);
          return result;
        });
        const mcp = await testApp(app).mcp({
          protocol,
          transport,
          onerror: (error) => errors.push(error),
        });
        const renamed = await mcp.call("customers_rename", { id: 1, name: "Ada King" });
        assert.equal(renamed.isError, undefined);
        // The command's own link once, then the middleware's one readable link: the same URI.
        assert.deepEqual(
          linksOf(renamed).map((link) => link.uri),
          ["app://customers_show/1"],
        );
        assert.deepEqual(
          errors.map((error) => error.message),
          [
            "customers_rename linked app://customers_export, which a read by the same agent would refuse; the link was left out",
            "customers_rename linked app://customers_show/0, which a read by the same agent would refuse; the link was left out",
            "customers_rename linked other://customers_show/1, which a read by the same agent would refuse; the link was left out",
          ],
        );
        await mcp.close();
      });
    });
  }
}

describe("links through `livecmd serve` as a child process (stdio)", () => {
  for (const era of PROTOCOLS) {
    it(`customers_create answers a resource_link on ${era}`, async () => {
      const served = await servedExample(era, "stdio");
      const created = (await served.client.callTool({
        name: "customers_create",
        arguments: { name: "Zed Shaw", email: "zed@example.com" },
      })) as CallToolResult;
      const { id } = created.structuredContent as { id: number };
      assert.deepEqual(linksOf(created), [showLink(id)]);
      await served.close();
    });
  }
});
