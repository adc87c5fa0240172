import {
  Client,
  InMemoryTransport,
  ProtocolError,
  StreamableHTTPClientTransport,
  SUBSCRIPTION_ID_META_KEY,
  type CallToolResult,
  type CompleteResult,
  type McpSubscription,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import type { App } from "../app.ts";
import type { LiveStatus } from "../server/servedApp.ts";
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
  complete(
    template: string,
    variable: string,
    prefix: string,
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
  /** The server's live registry: what it watches, and whether re-runs are done. */
  readonly live: LiveStatus;
  /** Shuts the server down while the client stays (what a client sees when its server stops). */
  stopServer(): Promise<void>;
  close(): Promise<void>;
}

export type ListenEnd = "local" | "graceful" | "remote";

export interface Listening {
  readonly honored: readonly string[];
  /** The URIs of `notifications/resources/updated` for this listen, in arrival order. */
  readonly updates: Updates;
  /**
   * How the listen ended. 2026-07-28: the SDK's `closed` (`graceful` when the server shut down);
   * 2025 era: `local` once `close()` unsubscribed.
   */
  readonly closed: Promise<ListenEnd>;
  close(): Promise<void>;
}

export interface Updates extends AsyncIterable<string> {
  /** Resolves with the next update's URI; rejects if none arrives within `timeoutMs`. */
  next(timeoutMs?: number): Promise<string>;
}

export function testApp(app: App): { mcp(options: McpTestOptions): Promise<McpTestClient> } {
  return { mcp: (options) => connect(app, options) };
}

const BYPASS = { cacheMode: "bypass" } as const;

async function connect(app: App, options: McpTestOptions): Promise<McpTestClient> {
  const client = new Client(
    { name: "livecmd-testing", version: "0.1.0" },
    options.protocol === "2026-07-28"
      ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
      : {},
  );
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
    complete: async (template, variable, prefix) =>
      (
        await client.complete({
          ref: { type: "ref/resource", uri: template },
          argument: { name: variable, value: prefix },
        })
      ).completion,
    templates: async () =>
      (await client.listResourceTemplates(undefined, BYPASS)).resourceTemplates,
    resources: async () => (await client.listResources(undefined, BYPASS)).resources,
    tools: async () => (await client.listTools(undefined, BYPASS)).tools,
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
  const serveOptions = options.pageSize === undefined ? {} : { pageSize: options.pageSize };
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

/**
 * Sends each `notifications/resources/updated` to the listen it belongs to: by subscription id
 * on 2026-07-28 (a URI may be in several listens, each getting its own copy), by URI on the 2025
 * era (updates carry no id). The client has one handler per notification method, hence one
 * router per client; and `McpSubscription` hides its id, so the router reads it off the listen
 * request as the client sends it, which `Client.listen` does before it first awaits.
 */
class UpdateRouter {
  readonly #byListenId = new Map<unknown, UpdateQueue>();
  readonly #byUri = new Map<string, Set<UpdateQueue>>();
  #lastListenId: unknown;

  constructor(client: Client) {
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      const listenId = notification.params._meta?.[SUBSCRIPTION_ID_META_KEY];
      if (listenId !== undefined)
        return this.#byListenId.get(listenId)?.push(notification.params.uri);
      for (const queue of this.#byUri.get(notification.params.uri) ?? [])
        queue.push(notification.params.uri);
    });
  }

  /** The transport, noting the id of each listen request sent on it. */
  watching<T extends Transport>(transport: T): T {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ("method" in message && message.method === "subscriptions/listen" && "id" in message)
        this.#lastListenId = message.id;
      return send(message, options);
    };
    return transport;
  }

  lastListenId(): unknown {
    return this.#lastListenId;
  }

  /** The updates of one 2026-07-28 listen. */
  forListen(listenId: unknown): UpdateQueue {
    const queue = new UpdateQueue(() => this.#byListenId.delete(listenId));
    this.#byListenId.set(listenId, queue);
    return queue;
  }

  /** The updates of these URIs (2025 era). */
  forUris(uris: readonly string[]): UpdateQueue {
    const queue = new UpdateQueue(() => uris.forEach((uri) => this.#byUri.get(uri)?.delete(queue)));
    for (const uri of uris) {
      let queues = this.#byUri.get(uri);
      if (!queues) this.#byUri.set(uri, (queues = new Set()));
      queues.add(queue);
    }
    return queue;
  }
}

class UpdateQueue implements Updates {
  readonly #arrived: string[] = [];
  readonly #waiting: ((result: IteratorResult<string>) => void)[] = [];
  readonly #onEnd: () => void;
  ended = false;

  constructor(onEnd: () => void) {
    this.#onEnd = onEnd;
  }

  push(uri: string): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter({ value: uri, done: false });
    else this.#arrived.push(uri);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.#onEnd();
    for (const waiter of this.#waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  next(timeoutMs = 2000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(new Error(`no notifications/resources/updated within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (result: IteratorResult<string>) => {
        clearTimeout(timer);
        if (result.done)
          reject(new Error("the listen ended before the next notifications/resources/updated"));
        else resolve(result.value);
      };
      this.#take(waiter);
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return { next: () => new Promise((resolve) => this.#take(resolve)) };
  }

  #take(waiter: (result: IteratorResult<string>) => void): void {
    const uri = this.#arrived.shift();
    if (uri !== undefined) waiter({ value: uri, done: false });
    else if (this.ended) waiter({ value: undefined, done: true });
    else this.#waiting.push(waiter);
  }
}

class ListChangeRecorder implements ListChanges {
  readonly #counts: Record<ListKind, number> = { resources: 0, tools: 0 };
  readonly #waiters: Record<ListKind, (() => void)[]> = { resources: [], tools: [] };

  constructor(client: Client) {
    client.setNotificationHandler("notifications/resources/list_changed", () =>
      this.#arrived("resources"),
    );
    client.setNotificationHandler("notifications/tools/list_changed", () => this.#arrived("tools"));
  }

  next(kind: ListKind, timeoutMs = 2000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no notifications/${kind}/list_changed within ${timeoutMs} ms`)),
        timeoutMs,
      );
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
