import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/** The real SDK clients an endpoint is tried with: the v2 client on each era, and the v1 client. */
export const STACK_CLIENTS = [
  { name: "the SDK v2 client on 2026-07-28", era: "2026-07-28", sdk: "v2" },
  { name: "the SDK v2 client on 2025-11-25", era: "2025-11-25", sdk: "v2" },
  { name: "the SDK v1 client (2025-11-25)", era: "2025-11-25", sdk: "v1" },
] as const;

export type StackClientKind = (typeof STACK_CLIENTS)[number];

/** What a test does with a client, whichever SDK and era. */
export interface StackClient {
  readonly protocolVersion: string | undefined;
  /** The `serverInfo` the server gave at connect. */
  readonly server: { name: string; version: string } | undefined;
  /** The JSON a read of `uri` returns. */
  read(uri: string): Promise<unknown>;
  /** The structured result of a tool call, which must succeed. */
  call(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** Watches `uri`: a listen on 2026-07-28, `resources/subscribe` on 2025-11-25. */
  watch(uri: string): Promise<{ end(): Promise<void>; closed?: Promise<string> }>;
  /** The next `notifications/resources/updated` URI (5 s at most). */
  nextUpdate(): Promise<string>;
  close(): Promise<void>;
}

/**
 * `kind` connected to the endpoint at `url` with `token`. A 2025 client opens its GET stream
 * some time after `initialize`, and what is pushed before is lost: `watch` waits for it.
 */
export async function connectStackClient(
  kind: StackClientKind,
  url: URL,
  token: string,
): Promise<StackClient> {
  const updates = new UpdateQueue();
  const { fetch, pushStreamOpen } = notingPushStream();
  const transport = { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch };
  return kind.sdk === "v1"
    ? connectV1(url, transport, updates, pushStreamOpen)
    : connectV2(kind.era, url, transport, updates, pushStreamOpen);
}

/**
 * A `fetch` for a client's transport, and when its 2025 push stream (the GET) first opened: what
 * the server pushes before that is lost.
 */
export function notingPushStream(): {
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
  pushStreamOpen: Promise<void>;
} {
  let opened!: () => void;
  const pushStreamOpen = new Promise<void>((resolve) => (opened = resolve));
  const noting = async (input: string | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    if (init?.method === "GET" && response.ok) opened();
    return response;
  };
  return { fetch: noting, pushStreamOpen };
}

type TransportOptions = {
  requestInit: RequestInit;
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
};

async function connectV2(
  era: StackClientKind["era"],
  url: URL,
  transport: TransportOptions,
  updates: UpdateQueue,
  pushStreamOpen: Promise<void>,
): Promise<StackClient> {
  const client = new Client(
    { name: "stack-test", version: "0" },
    { versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" } },
  );
  client.setNotificationHandler("notifications/resources/updated", (notification) =>
    updates.push(notification.params.uri),
  );
  await client.connect(new StreamableHTTPClientTransport(url, transport));
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    server: client.getServerVersion(),
    read: async (uri) => jsonOf(await client.readResource({ uri }, { cacheMode: "bypass" })),
    call: async (name, args) => resultOf(await client.callTool({ name, arguments: args })),
    async watch(uri) {
      if (era === "2025-11-25") return subscribed(client, uri, pushStreamOpen);
      const listen = await client.listen({ resourceSubscriptions: [uri] });
      return { end: () => listen.close(), closed: listen.closed };
    },
    nextUpdate: () => updates.next(),
    close: () => client.close(),
  };
}

async function connectV1(
  url: URL,
  transport: TransportOptions,
  updates: UpdateQueue,
  pushStreamOpen: Promise<void>,
): Promise<StackClient> {
  const client = new ClientV1({ name: "stack-test-v1", version: "0" });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
    updates.push(notification.params.uri),
  );
  const connected = new StreamableHTTPClientTransportV1(url, transport);
  await client.connect(connected);
  return {
    protocolVersion: connected.protocolVersion,
    server: client.getServerVersion(),
    read: async (uri) => jsonOf(await client.readResource({ uri })),
    call: async (name, args) => resultOf(await client.callTool({ name, arguments: args })),
    watch: (uri) => subscribed(client, uri, pushStreamOpen),
    nextUpdate: () => updates.next(),
    close: () => client.close(),
  };
}

async function subscribed(
  client: Pick<ClientV1, "subscribeResource" | "unsubscribeResource">,
  uri: string,
  pushStreamOpen: Promise<void>,
): Promise<{ end(): Promise<void> }> {
  await pushStreamOpen;
  await client.subscribeResource({ uri });
  return { end: async () => void (await client.unsubscribeResource({ uri })) };
}

function jsonOf(result: { contents: unknown[] }): unknown {
  return JSON.parse((result.contents[0] as { text: string }).text);
}

function resultOf(result: object): unknown {
  const { isError, content } = result as { isError?: boolean; content: { text: string }[] };
  if (isError) throw new Error(`the call failed: ${content[0]?.text}`);
  return JSON.parse(content[0]!.text);
}

/** URIs in arrival order, taken one at a time. */
class UpdateQueue {
  readonly #arrived: string[] = [];
  #waiting: ((uri: string) => void) | undefined;

  push(uri: string): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting(uri);
    else this.#arrived.push(uri);
  }

  next(timeoutMs = 5000): Promise<string> {
    const arrived = this.#arrived.shift();
    if (arrived !== undefined) return Promise.resolve(arrived);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no resources/updated within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.#waiting = (uri) => {
        clearTimeout(timer);
        resolve(uri);
      };
    });
  }
}
