import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type CompleteResult,
  type McpSubscription,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/client";
import type { App } from "../app.ts";
import { serveHttp } from "../server/serveHttp.ts";
import { serveStdio } from "../server/serveStdio.ts";

export type ProtocolVersion = "2026-07-28" | "2025-11-25";

export interface McpTestOptions {
  protocol: ProtocolVersion;
  /** `memory` (default): an in-process pair through the stdio entry; `http`: a real server on 127.0.0.1. */
  transport?: "memory" | "http";
  /** Entries per listing page (default 100). */
  pageSize?: number;
}

export type ListKind = "resources" | "tools";

/** `list_changed` notifications as the client received them. */
export interface ListChanges {
  /** Resolves on the next `notifications/<kind>/list_changed`; rejects after `timeoutMs`. */
  next(kind: ListKind, timeoutMs?: number): Promise<void>;
  /** How many arrived so far. */
  count(kind: ListKind): number;
}

/**
 * The app as an MCP client sees it, through the SDK's real `Client`. Every call goes to the
 * server (the client's response cache is bypassed), and errors are the SDK's `ProtocolError`
 * with the server's `code` and `data`.
 */
export interface McpTestClient {
  readonly client: Client;
  read(uri: string): Promise<ReadResourceResult>;
  call(tool: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  complete(template: string, variable: string, prefix: string): Promise<CompleteResult["completion"]>;
  /** Every page, walked by the client. */
  templates(): Promise<ResourceTemplate[]>;
  resources(): Promise<Resource[]>;
  tools(): Promise<Tool[]>;
  /** Asks for `list_changed`: a listen stream on 2026-07-28; on the 2025 era they arrive unasked. */
  listChanges(): Promise<ListChanges>;
  close(): Promise<void>;
}

export function testApp(app: App): { mcp(options: McpTestOptions): Promise<McpTestClient> } {
  return { mcp: (options) => connect(app, options) };
}

const BYPASS = { cacheMode: "bypass" } as const;

async function connect(app: App, options: McpTestOptions): Promise<McpTestClient> {
  const client = new Client(
    { name: "livecmd-testing", version: "0.1.0" },
    options.protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const recorder = new ListChangeRecorder(client);
  const { stop, pushStreamOpen } = await connectTransport(app, client, options);
  let listen: McpSubscription | undefined;
  return {
    client,
    read: (uri) => client.readResource({ uri }, BYPASS),
    call: (tool, args = {}) => client.callTool({ name: tool, arguments: args }) as Promise<CallToolResult>,
    complete: async (template, variable, prefix) =>
      (await client.complete({ ref: { type: "ref/resource", uri: template }, argument: { name: variable, value: prefix } })).completion,
    templates: async () => (await client.listResourceTemplates(undefined, BYPASS)).resourceTemplates,
    resources: async () => (await client.listResources(undefined, BYPASS)).resources,
    tools: async () => (await client.listTools(undefined, BYPASS)).tools,
    async listChanges() {
      if (options.protocol === "2026-07-28") listen ??= await client.listen({ resourcesListChanged: true, toolsListChanged: true });
      else await pushStreamOpen;
      return recorder;
    },
    async close() {
      await listen?.close();
      await client.close();
      await stop();
    },
  };
}

interface Connected {
  stop(): Promise<void>;
  /** Settles once the server can push unsolicited messages (2025 era) to this client. */
  pushStreamOpen: Promise<void>;
}

async function connectTransport(app: App, client: Client, options: McpTestOptions): Promise<Connected> {
  const serveOptions = options.pageSize === undefined ? {} : { pageSize: options.pageSize };
  if (options.transport === "http") {
    const serving = await serveHttp(app, { ...serveOptions, port: 0 });
    // A 2025 client opens its GET stream some time after initialize; what the server pushes
    // before that is lost, so `listChanges()` waits for the stream to be there.
    let opened!: () => void;
    const pushStreamOpen = new Promise<void>((resolve) => (opened = resolve));
    const fetchNotingPushStream = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      if (init?.method === "GET" && response.ok) opened();
      return response;
    };
    await client.connect(new StreamableHTTPClientTransport(serving.url, { fetch: fetchNotingPushStream }));
    return { stop: () => serving.close(), pushStreamOpen };
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(app, { ...serveOptions, transport: serverTransport });
  await client.connect(clientTransport);
  return { stop: () => handle.close(), pushStreamOpen: Promise.resolve() };
}

class ListChangeRecorder implements ListChanges {
  readonly #counts: Record<ListKind, number> = { resources: 0, tools: 0 };
  readonly #waiters: Record<ListKind, (() => void)[]> = { resources: [], tools: [] };

  constructor(client: Client) {
    client.setNotificationHandler("notifications/resources/list_changed", () => this.#arrived("resources"));
    client.setNotificationHandler("notifications/tools/list_changed", () => this.#arrived("tools"));
  }

  next(kind: ListKind, timeoutMs = 2000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no notifications/${kind}/list_changed within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters[kind].push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  count(kind: ListKind): number {
    return this.#counts[kind];
  }

  #arrived(kind: ListKind): void {
    this.#counts[kind] += 1;
    for (const wake of this.#waiters[kind].splice(0)) wake();
  }
}
