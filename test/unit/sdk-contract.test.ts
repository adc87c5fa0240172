import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { PassThrough } from "node:stream";
import path from "node:path";
import { describe, it } from "node:test";
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  createMcpHandler,
  isLegacyRequest,
  ResourceTemplate,
  Server,
  type McpServer,
} from "@modelcontextprotocol/server";
import { memorySkillFiles, SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { clientRefusal } from "../../packages/livecmd/runtime/server/sdkAdapter/index.ts";
import { root } from "../helpers/cli.ts";

/**
 * The SDK behaviours `runtime/server/sdkAdapter/` relies on, checked against the installed SDK
 * with nothing of livecmd's in between. After an SDK upgrade, a failure here names the behaviour
 * that changed: re-read `sdkAdapter/index.ts` and adapt, or drop, the piece built on it.
 */

const PINNED = { versionNegotiation: { mode: { pin: "2026-07-28" } } } as const;

/** A bare SDK server that could serve resources and be listened to, and answers nothing else. */
const bareServer = () =>
  new Server(
    { name: "contract", version: "1.0.0" },
    { capabilities: { resources: { subscribe: true } } },
  );

/** A client on 2026-07-28 through `createMcpHandler`, its requests handed over as they are or through `rewrite`. */
async function overHttp(rewrite?: (body: unknown) => unknown) {
  const handler = createMcpHandler(bareServer, { legacy: "reject" });
  const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    if (!rewrite || init?.method !== "POST") return handler.fetch(request);
    return handler.fetch(request, { parsedBody: rewrite(JSON.parse(String(init.body))) });
  };
  const client = new Client({ name: "contract", version: "1.0.0" }, PINNED);
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), { fetch }),
  );
  return { client, handler };
}

/** A client on 2026-07-28 through the SDK's stdio entry, in memory; `pinned` is the instance the entry built. */
async function overStdio() {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let pinned: Server | undefined;
  const entry = serveStdio(() => (pinned = bareServer()), { transport: serverSide });
  const client = new Client({ name: "contract", version: "1.0.0" }, PINNED);
  await client.connect(clientSide);
  return { client, entry, pinned: () => pinned! };
}

function updatesOf(client: Client): string[] {
  const updates: string[] = [];
  client.setNotificationHandler(
    "notifications/resources/updated",
    (notification) => void updates.push(notification.params.uri),
  );
  return updates;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("the SDK behaviours livecmd's listen narrowing relies on", () => {
  it("the SDK is the 2.4 line sdkAdapter/ was written against", async () => {
    const { version } = JSON.parse(
      await readFile(
        path.join(root, "node_modules/@modelcontextprotocol/server/package.json"),
        "utf8",
      ),
    ) as { version: string };
    assert.match(
      version,
      /^2\.4\./,
      `@modelcontextprotocol/server is ${version}: check each behaviour below and runtime/server/sdkAdapter/index.ts`,
    );
  });

  for (const [transport, connect] of [
    ["HTTP (createMcpHandler)", () => overHttp()],
    ["stdio (serveStdio)", () => overStdio()],
  ] as const) {
    it(`1. ${transport} acknowledges resourceSubscriptions verbatim, checking no URI`, async () => {
      const { client } = await connect();
      const asked = ["app://x/1", "not a URI at all {", "app://x/1"];
      const listen = await client.listen({ resourceSubscriptions: asked });
      assert.deepEqual(listen.honoredFilter.resourceSubscriptions, asked);
      await listen.close();
      await client.close();
    });

    it(`2. ${transport} leaves an empty resourceSubscriptions out of the acknowledgement`, async () => {
      const { client } = await connect();
      const listen = await client.listen({ resourceSubscriptions: [], resourcesListChanged: true });
      assert.equal(listen.honoredFilter.resourceSubscriptions, undefined);
      await listen.close();
      await client.close();
    });
  }

  it("4. createMcpHandler serves the parsedBody it is handed, not the body on the wire", async () => {
    const narrow = (body: unknown) => {
      const message = body as {
        method?: string;
        params?: { notifications?: { resourceSubscriptions?: string[] } };
      };
      if (message.method === "subscriptions/listen")
        message.params!.notifications!.resourceSubscriptions = ["app://x/1"];
      return message;
    };
    const { client } = await overHttp(narrow);
    const listen = await client.listen({ resourceSubscriptions: ["app://x/1", "app://x/2"] });
    assert.deepEqual(listen.honoredFilter.resourceSubscriptions, ["app://x/1"]);
    await listen.close();
    await client.close();
  });

  it("5. an update reaches the listens whose filter holds that exact URI, and no other (HTTP notify bus)", async () => {
    const { client, handler } = await overHttp();
    const updates = updatesOf(client);
    const watching = await client.listen({ resourceSubscriptions: ["app://x/1"] });
    const other = await client.listen({ resourceSubscriptions: ["app://x/2", "APP://x/1"] });
    handler.notify.resourceUpdated("app://x/1");
    await settle();
    assert.deepEqual(updates, ["app://x/1"]);
    await watching.close();
    await other.close();
    await client.close();
  });

  it("5. an update sent through the pinned instance reaches the listens whose filter holds that exact URI (stdio entry)", async () => {
    const { client, pinned } = await overStdio();
    const updates = updatesOf(client);
    const watching = await client.listen({ resourceSubscriptions: ["app://x/1"] });
    const other = await client.listen({ resourceSubscriptions: ["app://x/2"] });
    await pinned().sendResourceUpdated({ uri: "app://x/1" });
    await pinned().sendResourceUpdated({ uri: "app://x/3" });
    await settle();
    assert.deepEqual(updates, ["app://x/1"]);
    await watching.close();
    await other.close();
    await client.close();
  });

  it("6. isLegacyRequest tells a 2025 client's requests from a 2026-07-28 client's, as they come off the wire", async () => {
    for (const [era, options, legacy] of [
      ["2026-07-28", PINNED, false],
      ["2025", {}, true],
    ] as const) {
      const handler = createMcpHandler(bareServer);
      const posts: { request: Request; body: unknown }[] = [];
      const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
        const request = new Request(url, init);
        if (init?.method === "POST")
          posts.push({ request: request.clone(), body: JSON.parse(String(init.body)) });
        return handler.fetch(request);
      };
      const client = new Client({ name: "contract", version: "1.0.0" }, options);
      await client.connect(
        new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), { fetch }),
      );
      await client.listResources().catch(() => undefined);
      await client.close();
      assert.ok(posts.length > 0);
      for (const { request, body } of posts)
        assert.equal(
          await isLegacyRequest(request, body),
          legacy,
          `${era}: ${JSON.stringify(body).slice(0, 80)}`,
        );
    }
  });

  it("9. the entries report the client's refused requests through onerror, in words clientRefusal knows", async () => {
    const reported: Error[] = [];
    const handler = createMcpHandler(bareServer, {
      legacy: "reject",
      onerror: (error) => void reported.push(error),
    });
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const post = (body: string, headers: Record<string, string>) =>
      handler.fetch(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: { accept: "application/json, text/event-stream", ...headers },
          body,
        }),
      );
    const json = { "content-type": "application/json" };
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } };
    await post(JSON.stringify(list), {
      ...json,
      "mcp-protocol-version": "2025-11-25",
      "mcp-method": "tools/list",
    });
    await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "c", version: "0" },
        },
      }),
      json,
    );
    await post(JSON.stringify(list), { "content-type": "text/plain" });
    const unversioned = {
      ...list,
      params: { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    };
    await post(JSON.stringify(unversioned), {
      ...json,
      "mcp-protocol-version": "2099-01-01",
      "mcp-method": "tools/list",
    });

    // A stdio client's line that is no JSON (dropped unreported), and one that is no JSON-RPC message.
    const stdin = new PassThrough();
    const entry = serveStdio(bareServer, {
      transport: new StdioServerTransport(stdin, new PassThrough()),
      onerror: (error) => void reported.push(error),
    });
    stdin.write('garbage\n{"jsonrpc":"2.0","id":{}}\n');
    await new Promise((resolve) => setImmediate(resolve));
    await entry.close();

    assert.deepEqual(
      reported.map((error) => clientRefusal(error)?.kind ?? error.message),
      [
        "header-body-version-mismatch",
        "modern-only-missing-envelope",
        "unsupported-media-type",
        "unsupported-protocol-version",
        "unreadable-message",
      ],
    );
    assert.equal(clientRefusal(new Error("connection reset")), undefined);
  });

  it("10. the skills extension attaches through an McpServer's server, isConnected() and registerResource alone", async () => {
    const skills = await SkillsExtension.load(
      memorySkillFiles({
        "demo/SKILL.md": "---\nname: demo\ndescription: A skill to attach.\n---\n\n# demo\n",
      }),
    );
    const registered: unknown[][] = [];
    const touched = new Set<PropertyKey>();
    const host = new Proxy(
      {
        server: bareServer(),
        isConnected: () => false,
        registerResource: (...args: unknown[]) => void registered.push(args),
      },
      {
        get(target, key, receiver) {
          touched.add(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
      },
    );
    skills.attach(host as unknown as McpServer);
    assert.deepEqual([...touched].map(String).sort(), [
      "isConnected",
      "registerResource",
      "server",
    ]);
    assert.equal(registered.length, 1, "one resource template for the skill files");
    const [, template, , read] = registered[0]!;
    assert.ok(template instanceof ResourceTemplate, "registered a ResourceTemplate");
    assert.equal(typeof template.listCallback, "function", "whose list gives the SKILL.md files");
    assert.equal(typeof read, "function");
  });
});
