/**
 * The main job's demo: an agent's view of the example app over MCP. It starts `livecmd serve`
 * as a real child process on stdio and talks to it with the official SDK client, as Claude
 * Desktop or any MCP host would.
 */
import path from "node:path";
import { Client, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { uris } from "../generated/uris.ts";

const root = path.resolve(import.meta.dirname, "..");
const say = (text: string) => process.stdout.write(`${text}\n`);
const show = (value: unknown) => JSON.stringify(value).slice(0, 300);

const client = new Client({ name: "livecmd-demo", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [path.join(root, "bin/livecmd.js"), "serve"], cwd: root, stderr: "inherit" }),
);
say(`connected: protocol ${client.getNegotiatedProtocolVersion()}, server capabilities ${show(client.getServerCapabilities())}\n`);

const { resourceTemplates } = await client.listResourceTemplates();
say("resources/templates/list:");
for (const template of resourceTemplates) say(`  ${template.uriTemplate}  (${template.name})`);
const { resources } = await client.listResources();
say(`resources/list: ${resources.map((resource) => resource.uri).join(", ")}\n`);

for (const uri of [uris.customers_show({ id: 1 }), uris.customers_index({ search: "ada", sort: "name" })]) {
  const { contents } = await client.readResource({ uri });
  say(`resources/read ${uri}\n  -> ${show(contents[0])}\n`);
}

const typo = "app://customers_index?serch=ada&sort=name";
try {
  await client.readResource({ uri: typo });
  throw new Error(`reading ${typo} should have failed`);
} catch (error) {
  if (!(error instanceof ProtocolError)) throw error;
  say(`resources/read ${typo}\n  -> error ${error.code}: ${error.message}\n     data ${show(error.data)}\n`);
}

const completion = await client.complete({
  ref: { type: "ref/resource", uri: "app://customers_index{?direction,page,per_page,search,sort}" },
  argument: { name: "direction", value: "" },
});
say(`completion/complete direction "" -> ${show(completion.completion)}`);

await client.close();
