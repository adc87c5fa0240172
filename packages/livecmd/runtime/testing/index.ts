import {
  Client,
  InMemoryTransport,
  ProtocolError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientOptions,
  type CompleteResult,
  type ElicitRequest,
  type ElicitResult,
  type McpSubscription,
  type Progress,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/client";
import type { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { App } from "../model/app.ts";
import { engineOf } from "../model/attachedEngine.ts";
import { VERSION_META_KEY } from "../model/resultMeta.ts";
import { VIEW_EXTENSION_ID, VIEW_MIME_TYPE } from "../model/viewResource.ts";
import type { WatchAnswer } from "../model/watchTool.ts";
import {
  ListChangeRecorder,
  UpdateRouter,
  type ListChanges,
  type Updates,
} from "./notifications.ts";

export type { ListChanges, ListKind, Update, Updates } from "./notifications.ts";
export { checkResult } from "./checkResult.ts";
export type { WatchAnswer, WatchChange } from "../model/watchTool.ts";
export { ResultMismatch } from "../validation/resultMismatch.ts";
import type { LiveStatus } from "../server/served/servedApp.ts";
import { serveHttp } from "../server/http/serveHttp.ts";
import { serveStdio } from "../server/stdio/serveStdio.ts";

export type ProtocolVersion = "2026-07-28" | "2025-11-25";

export interface McpTestOptions {
  protocol: ProtocolVersion;
  /** `memory` (default): an in-process pair through the stdio entry; `http`: a real server on 127.0.0.1. */
  transport?: "memory" | "http";
  /** Entries per listing page (default 100). */
  pageSize?: number;
  /** Told what no request can carry (a completer or a re-run that threw); a line on stderr when absent. */
  onerror?: (error: Error) => void;
  /**
   * Check every read and call result against the command's result type (`ServeOptions`), so a
   * command that drifts from its return type fails the test that reads it. Off when absent
   * (unless `LIVECMD_CHECK_RESULTS=1`), as in a served app.
   */
  checkResults?: boolean;
  /**
   * The person behind the client: declares form elicitation, and answers each question the
   * server asks (a confirm command's confirmation). Without it the client declares none.
   */
  elicit?: (request: ElicitRequest["params"]) => ElicitResult | Promise<ElicitResult>;
  /**
   * Declares the MCP Apps extension, as a host that renders views does: `resources/list` then
   * lists the commands' views. Without it the client declares none and is listed none.
   */
  views?: boolean;
  /** Agent skills to serve (`ServeOptions.skills`: `await loadSkills("src/generated/skills")`). */
  skills?: SkillsExtension;
  /** How long the person has to answer a confirmation (`ServeOptions.confirmTimeoutMs`). */
  confirmTimeoutMs?: number;
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
  /** `filled`: the variables already filled in (`context.arguments`). */
  complete(
    template: string,
    variable: string,
    prefix: string,
    filled?: Record<string, string>,
  ): Promise<CompleteResult["completion"]>;
  /** Every page, walked by the client. */
  templates(): Promise<ResourceTemplate[]>;
  resources(): Promise<Resource[]>;
  tools(): Promise<Tool[]>;
  /** Asks for `list_changed`: a listen stream on 2026-07-28; on the 2025 era they arrive unasked. */
  listChanges(): Promise<ListChanges>;
  /**
   * Watches `uris`: one `subscriptions/listen` on 2026-07-28, `resources/subscribe` for each URI
   * in turn on the 2025 era. `honored` is what the server agreed to watch, in the order asked.
   */
  listen(uris: readonly string[]): Promise<Listening>;
  /**
   * Calls the watch tool (`agent.watchTool`) as an agent in a host without subscriptions would:
   * each URI with the version last seen of it (none: it answers at once). Resolves with its
   * answer; rejects with the tool error's text (a URI it cannot watch, a limit).
   */
  watch(
    resources: readonly (string | { uri: string; version?: string })[],
    options?: WatchOptions,
  ): Promise<WatchAnswer>;
  /** The version of what `uri` reads as now (`_meta` of the read's contents). */
  version(uri: string): Promise<string>;
  /** The server's live registry: what it watches, and whether re-runs are done. */
  readonly live: LiveStatus;
  /** Shuts the server down while the client stays (what a client sees when its server stops). */
  stopServer(): Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** How long the watch may wait, in milliseconds (the tool's own default when absent). */
  timeoutMs?: number;
  /** Cancels the call (`notifications/cancelled`, or the request stream closed). */
  signal?: AbortSignal;
  /** Asks for progress: each `notifications/progress` of the call, as it arrives. */
  onprogress?: (progress: Progress) => void;
}

export type ListenEnd = "local" | "graceful" | "remote";

export interface Listening {
  readonly honored: readonly string[];
  /** The `notifications/resources/updated` of this listen, in arrival order: URIs, and with `nextUpdate` their versions. */
  readonly updates: Updates;
  /**
   * How the listen ended. 2026-07-28: the SDK's `closed` (`graceful` when the server shut down);
   * 2025 era: `local` once `close()` unsubscribed.
   */
  readonly closed: Promise<ListenEnd>;
  close(): Promise<void>;
}

export function testApp(app: App): { mcp(options: McpTestOptions): Promise<McpTestClient> } {
  return { mcp: (options) => connect(app, options) };
}

const BYPASS = { cacheMode: "bypass" } as const;

/**
 * How the SDK client speaks each era: pinned to 2026-07-28 (`server/discover`, the envelope on
 * every request), or the 2025 `initialize` handshake, `mode: "legacy"` (the SDK's default; a pin
 * takes only a 2026 revision: with `{ pin: "2025-11-25" }`, `connect()` rejects with a TypeError).
 */
const ERA_MODES = {
  "2026-07-28": { mode: { pin: "2026-07-28" } },
  "2025-11-25": { mode: "legacy" },
} as const satisfies Record<ProtocolVersion, ClientOptions["versionNegotiation"]>;

/**
 * The SDK client of the era asked for, answering elicitations when the test gave an answerer and
 * declaring the MCP Apps extension when it asked for views.
 */
function sdkClient({ protocol, elicit, views }: McpTestOptions): Client {
  const capabilities = {
    ...(elicit && { elicitation: { form: {} } }),
    ...(views && { extensions: { [VIEW_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } }),
  };
  const client = new Client(
    { name: "livecmd-testing", version: "0.1.0" },
    { versionNegotiation: ERA_MODES[protocol], capabilities },
  );
  if (elicit) client.setRequestHandler("elicitation/create", (request) => elicit(request.params));
  return client;
}

async function connect(app: App, options: McpTestOptions): Promise<McpTestClient> {
  const client = sdkClient(options);
  const recorder = new ListChangeRecorder(client);
  const updates = new UpdateRouter(client);
  const { stop, pushStreamOpen, live } = await connectTransport(app, client, options, updates);
  let listen: McpSubscription | undefined;
  const listenings = new Set<Listening>();
  let stopped: Promise<void> | undefined;
  const stopServer = () => (stopped ??= stop());
  return {
    client,
    read: (uri) => client.readResource({ uri }, BYPASS),
    call: (tool, args = {}) =>
      client.callTool({ name: tool, arguments: args }) as Promise<CallToolResult>,
    complete: async (template, variable, prefix, filled) =>
      (
        await client.complete({
          ref: { type: "ref/resource", uri: template },
          argument: { name: variable, value: prefix },
          ...(filled && { context: { arguments: filled } }),
        })
      ).completion,
    templates: async () =>
      (await client.listResourceTemplates(undefined, BYPASS)).resourceTemplates,
    resources: async () => (await client.listResources(undefined, BYPASS)).resources,
    tools: async () => (await client.listTools(undefined, BYPASS)).tools,
    watch: (resources, watchOptions) =>
      callWatchTool(client, watchToolOf(app), resources, watchOptions),
    version: async (uri) => versionOf(uri, await client.readResource({ uri }, BYPASS)),
    async listChanges() {
      if (options.protocol === "2026-07-28")
        listen ??= await client.listen({ resourcesListChanged: true, toolsListChanged: true });
      else await pushStreamOpen;
      return recorder;
    },
    async listen(uris) {
      const listening =
        options.protocol === "2026-07-28"
          ? await listenModern(client, updates, uris)
          : await subscribeLegacy(client, updates, uris, pushStreamOpen);
      listenings.add(listening);
      void listening.closed.then(() => listenings.delete(listening));
      return listening;
    },
    live,
    stopServer,
    async close() {
      // Nothing to unsubscribe from once the server or the connection is gone.
      if (!stopped && client.transport) {
        await listen?.close();
        for (const listening of listenings) await listening.close();
      }
      await client.close();
      await stopServer();
    },
  };
}

interface Connected {
  stop(): Promise<void>;
  /** Settles once the server can push unsolicited messages (2025 era) to this client. */
  pushStreamOpen: Promise<void>;
  live: LiveStatus;
}

async function connectTransport(
  app: App,
  client: Client,
  options: McpTestOptions,
  updates: UpdateRouter,
): Promise<Connected> {
  const serveOptions = {
    ...(options.pageSize !== undefined && { pageSize: options.pageSize }),
    ...(options.onerror && { onerror: options.onerror }),
    ...(options.checkResults !== undefined && { checkResults: options.checkResults }),
    ...(options.skills && { skills: options.skills }),
    ...(options.confirmTimeoutMs !== undefined && { confirmTimeoutMs: options.confirmTimeoutMs }),
  };
  if (options.transport === "http") {
    const serving = await serveHttp(app, { ...serveOptions, port: 0 });
    // A 2025 client opens its GET stream some time after initialize; what the server pushes
    // before that is lost, so `listChanges()` waits for the stream to be there.
    let opened!: () => void;
    const pushStreamOpen = new Promise<void>((resolve) => (opened = resolve));
    const fetchNotingPushStream = async (
      url: string | URL,
      init?: RequestInit,
    ): Promise<Response> => {
      const response = await fetch(url, init);
      if (init?.method === "GET" && response.ok) opened();
      return response;
    };
    await client.connect(
      updates.watching(
        new StreamableHTTPClientTransport(serving.url, { fetch: fetchNotingPushStream }),
      ),
    );
    return { stop: () => serving.close(), pushStreamOpen, live: serving.live };
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(app, { ...serveOptions, transport: serverTransport });
  await client.connect(updates.watching(clientTransport));
  return { stop: () => handle.close(), pushStreamOpen: Promise.resolve(), live: handle.live };
}

function watchToolOf(app: App): string {
  const name = engineOf(app).watchTool;
  if (name === undefined)
    throw new Error(`livecmd: app "${app.name}" serves no watch tool (agent.watchTool: false)`);
  return name;
}

async function callWatchTool(
  client: Client,
  tool: string,
  resources: readonly (string | { uri: string; version?: string })[],
  { timeoutMs, signal, onprogress }: WatchOptions = {},
): Promise<WatchAnswer> {
  const result = (await client.callTool(
    {
      name: tool,
      arguments: {
        resources: resources.map((each) => (typeof each === "string" ? { uri: each } : each)),
        ...(timeoutMs !== undefined && { timeoutMs }),
      },
    },
    // The wait is bounded by the tool; progress, when asked for, keeps the request alive too.
    { ...(signal && { signal }), ...(onprogress && { onprogress, resetTimeoutOnProgress: true }) },
  )) as CallToolResult;
  if (result.isError)
    throw new Error(result.content.map((part) => ("text" in part ? part.text : "")).join(""));
  return result.structuredContent as unknown as WatchAnswer;
}

function versionOf(uri: string, result: ReadResourceResult): string {
  const version = result.contents[0]?._meta?.[VERSION_META_KEY];
  if (typeof version !== "string")
    throw new Error(`livecmd: reading ${uri} gave no version in _meta["${VERSION_META_KEY}"]`);
  return version;
}

async function listenModern(
  client: Client,
  router: UpdateRouter,
  uris: readonly string[],
): Promise<Listening> {
  const opening = client.listen({ resourceSubscriptions: [...uris] });
  const queue = router.forListen(router.lastListenId());
  const subscription = await opening.catch((error: unknown) => {
    queue.end();
    throw error;
  });
  void subscription.closed.then(() => queue.end());
  return {
    honored: subscription.honoredFilter.resourceSubscriptions ?? [],
    updates: queue,
    closed: subscription.closed,
    close: () => subscription.close(),
  };
}

async function subscribeLegacy(
  client: Client,
  router: UpdateRouter,
  uris: readonly string[],
  pushStreamOpen: Promise<void>,
): Promise<Listening> {
  await pushStreamOpen;
  const honored: string[] = [];
  for (const uri of new Set(uris)) {
    try {
      await client.subscribeResource({ uri });
      honored.push(uri);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
    }
  }
  const queue = router.forUris(honored);
  let ended!: (end: ListenEnd) => void;
  const closed = new Promise<ListenEnd>((resolve) => (ended = resolve));
  return {
    honored,
    updates: queue,
    closed,
    async close() {
      if (queue.ended) return;
      queue.end();
      for (const uri of honored) await client.unsubscribeResource({ uri });
      ended("local");
    },
  };
}
