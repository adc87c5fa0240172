/**
 * The main job's demo: an agent's view of the example app over MCP. It starts `livecmd serve`
 * as a real child process on stdio and talks to it with the official SDK client, as Claude
 * Desktop or any MCP host would: discovery, reads, an error, completion, then live updates, by a
 * listen and by the watch tool.
 *
 * The database persists (`.tmp/example.sqlite`, or the PostgreSQL database `DATABASE_URL` names),
 * so the demo renames customers back to what they were called before it ran.
 */
import path from "node:path";
import { Client, ProtocolError, type CallToolResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { int } from "livecmd/uri";
import { uris } from "../generated/uris.ts";

const root = path.resolve(import.meta.dirname, "..");
const say = (text: string) => process.stdout.write(`${text}\n`);
const show = (value: unknown) => JSON.stringify(value).slice(0, 300);

const client = new Client(
  { name: "livecmd-demo", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, "packages/livecmd/bin/livecmd.js"), "serve"],
    cwd: root,
    // The server gets this process's whole environment (`DATABASE_URL` above all); the SDK
    // passes only HOME, PATH and a few more by default.
    env: Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stderr: "inherit",
  }),
);
say(
  process.env.DATABASE_URL
    ? "database: PostgreSQL, at DATABASE_URL"
    : `database: SQLite, ${process.env.LIVECMD_EXAMPLE_DB ?? ".tmp/example.sqlite"}`,
);
say(
  `connected: protocol ${client.getNegotiatedProtocolVersion()}, server capabilities ${show(client.getServerCapabilities())}\n`,
);

const { resourceTemplates } = await client.listResourceTemplates();
say("resources/templates/list:");
for (const template of resourceTemplates) say(`  ${template.uriTemplate}  (${template.name})`);
const { resources } = await client.listResources();
say(`resources/list: ${resources.map((resource) => resource.uri).join(", ")}\n`);

for (const uri of [
  uris.customers_show({ id: int(1) }),
  uris.customers_index({ search: "ada", sort: "name" }),
]) {
  const { contents } = await client.readResource({ uri });
  say(`resources/read ${uri}\n  -> ${show(contents[0])}\n`);
}

const typo = "app://customers_index?serch=ada&sort=name";
try {
  await client.readResource({ uri: typo });
  throw new Error(`reading ${typo} should have failed`);
} catch (error) {
  if (!(error instanceof ProtocolError)) throw error;
  say(
    `resources/read ${typo}\n  -> error ${error.code}: ${error.message}\n     data ${show(error.data)}\n`,
  );
}

const completion = await client.complete({
  ref: { type: "ref/resource", uri: "app://customers_index{?direction,page,per_page,search,sort}" },
  argument: { name: "direction", value: "" },
});
say(`completion/complete direction "" -> ${show(completion.completion)}\n`);

// Live updates: watch two URIs, then rename customer 1 from this same client.
const watched = [uris.customers_index({ search: "ada" }), uris.customers_show({ id: int(1) })];
const updates: string[] = [];
let updated: (() => void) | undefined;
client.setNotificationHandler("notifications/resources/updated", ({ params }) => {
  say(
    `  <- notifications/resources/updated ${params.uri}  (subscription ${String(params._meta?.["io.modelcontextprotocol/subscriptionId"])})`,
  );
  updates.push(params.uri);
  updated?.();
});
const subscription = await client.listen({ resourceSubscriptions: watched });
say(`subscriptions/listen ${show(watched)}\n  -> acknowledged ${show(subscription.honoredFilter)}`);

const ada = await customerName(1);
const adaRenamed = ada === "Ada King" ? "Ada Lovelace" : "Ada King";
await rename(1, adaRenamed);
await updatesArrived(2, 5000);

const other = await customerName(500);
await rename(500, `${other} (renamed)`);
const quiet = await updatesArrived(3, 500).then(
  () => false,
  () => true,
);
say(
  quiet
    ? "  (no notification within 500 ms: neither watched result changed)"
    : "  unexpected notification for a write that matches neither URI",
);

await subscription.close();
await rename(500, other);

// A host that only calls tools keeps an eye on customer 1 through the watch tool: the first call
// answers at once with the contents and version, the next waits for a change to that version.
say("\nwithout subscriptions, as a host that only calls tools does:");
const first = await watchTool({ resources: [{ uri: watched[1]! }] });
const waiting = watchTool({ resources: first.resources, timeoutMs: 10_000 });
await rename(1, ada);
await waiting;
say(`\nrestored customers 1 and 500 to ${show(ada)} and ${show(other)}`);
await client.close();
if (!quiet) process.exitCode = 1;

async function customerName(id: number): Promise<string> {
  const { contents } = await client.readResource(
    { uri: uris.customers_show({ id: int(id) }) },
    { cacheMode: "bypass" },
  );
  return (JSON.parse((contents[0] as { text: string }).text) as { name: string }).name;
}

async function rename(id: number, name: string): Promise<void> {
  const result = (await client.callTool({
    name: "customers_rename",
    arguments: { id, name },
  })) as CallToolResult;
  if (result.isError) throw new Error(`customers_rename ${id} failed: ${show(result.content)}`);
  say(`tools/call customers_rename ${show({ id, name })}`);
}

interface WatchAnswer {
  status: string;
  changed: { uri: string; version: string; value?: { name?: string } }[];
  resources: { uri: string; version: string }[];
}

/** Calls the watch tool as an agent would, and says what it sent and what came back. */
async function watchTool(args: Record<string, unknown>): Promise<WatchAnswer> {
  say(`tools/call watch_resources ${show(args)}`);
  const started = performance.now();
  const result = (await client.callTool({
    name: "watch_resources",
    arguments: args,
  })) as CallToolResult;
  if (result.isError) throw new Error(`watch_resources failed: ${show(result.content)}`);
  const answer = result.structuredContent as unknown as WatchAnswer;
  const after = `${Math.round(performance.now() - started)} ms`;
  for (const { uri, version, value } of answer.changed)
    say(`  -> ${answer.status} after ${after}: ${uri} ${show(value?.name)}, version ${version}`);
  if (answer.changed.length === 0) say(`  -> ${answer.status} after ${after}`);
  return answer;
}

/** Resolves once `count` updates arrived in all; rejects after `timeoutMs`. */
function updatesArrived(count: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${updates.length} of ${count} notifications within ${timeoutMs} ms`)),
      timeoutMs,
    );
    updated = () => {
      if (updates.length < count) return;
      clearTimeout(timer);
      resolve();
    };
    updated();
  });
}
