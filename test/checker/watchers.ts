import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { WatchAnswer } from "../../packages/livecmd/runtime/model/watchTool.ts";
import { VERSION_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";
import { notingPushStream } from "../helpers/stackClients.ts";

/** How a watcher watches: a 2026-07-28 listen, 2025 `resources/subscribe`, or the watch tool. */
export type WatcherKind = "listen" | "subscribe" | "watch tool";

export const WATCHER_KINDS: readonly WatcherKind[] = ["listen", "subscribe", "watch tool"];

/**
 * A client watching URIs as a host does: told of a change (a notification, or the watch tool's
 * answer), it reads the URI again, and what it read last is what it was told. `told` holds the
 * version of each URI's last result it was told of; `heard` the URIs it was told changed since
 * `heard` was last cleared.
 */
export abstract class Watcher {
  readonly told = new Map<string, string>();
  readonly heard = new Set<string>();
  readonly #reading = new Map<string, { again: boolean; done: Promise<void> }>();

  constructor(
    readonly kind: WatcherKind,
    protected readonly client: Client,
  ) {}

  /** The URIs watched now. */
  abstract watching(): readonly string[];
  /** Starts watching `uris` (none of them watched already); resolves once each was read once. */
  abstract watch(uris: readonly string[]): Promise<void>;
  /** Stops watching some of the URIs watched (the watcher picks which, with `pick`). */
  abstract unwatch(pick: (count: number) => number): Promise<void>;

  /** Resolves once no read the watcher was told to make is in progress. */
  async idle(): Promise<void> {
    while (this.#reading.size > 0)
      await Promise.all([...this.#reading.values()].map((r) => r.done));
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * Reads `uri` again (`told` of a change unless it is the first read): once more after the
   * read in progress, if one is, so that reads of one URI never cross.
   */
  protected reread(uri: string, told = true): void {
    if (told) this.heard.add(uri);
    const reading = this.#reading.get(uri);
    if (reading) {
      reading.again = true;
      return;
    }
    const state = { again: false, done: Promise.resolve() };
    state.done = (async () => {
      do {
        state.again = false;
        this.told.set(uri, await readVersion(this.client, uri));
      } while (state.again);
      this.#reading.delete(uri);
    })();
    this.#reading.set(uri, state);
  }

  /** The first read of each of `uris`, once watched. */
  protected async readAll(uris: readonly string[]): Promise<void> {
    for (const uri of uris) this.reread(uri, false);
    await this.idle();
  }
}

/** How long a request may take before the checker counts it as never answered. */
export const ANSWER_WITHIN_MS = 15_000;

/** The version of what reading `uri` returns now, or the error it answers (a time-out among them). */
export async function readVersion(
  client: Client,
  uri: string,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const result = await client.readResource(
      { uri },
      { cacheMode: "bypass", timeout: ANSWER_WITHIN_MS, ...(signal && { signal }) },
    );
    const version = result.contents[0]?._meta?.[VERSION_META_KEY];
    if (typeof version !== "string") throw new Error(`reading ${uri} gave no version`);
    return version;
  } catch (error) {
    if (signal?.aborted) throw error;
    const cause = (error as Error).cause as Error | undefined;
    // fetch's own message ("fetch failed") says nothing; its cause says how the request failed.
    const why = cause?.message ? ` (${cause.message.split("\n")[0]})` : "";
    return `error: ${(error as Error).message.split("\n")[0]}${why}`;
  }
}

/** A v2 SDK client on `url`, on the 2026-07-28 era or 2025's, and when its 2025 push stream opened. */
export async function connectClient(
  url: URL,
  era: "2026-07-28" | "2025-11-25",
): Promise<{ client: Client; pushStreamOpen: Promise<void> }> {
  const client = new Client(
    { name: "live-checker", version: "0" },
    { versionNegotiation: { mode: era === "2026-07-28" ? { pin: era } : "legacy" } },
  );
  const { fetch, pushStreamOpen } = notingPushStream();
  await client.connect(new StreamableHTTPClientTransport(url, { fetch }));
  return { client, pushStreamOpen };
}

/** 2026-07-28: each `watch` opens a listen of its URIs; `unwatch` closes one listen. */
class ListenWatcher extends Watcher {
  readonly #listens: { uris: readonly string[]; close(): Promise<void> }[] = [];

  constructor(client: Client) {
    super("listen", client);
    client.setNotificationHandler("notifications/resources/updated", ({ params }) =>
      this.reread(params.uri),
    );
  }

  watching(): readonly string[] {
    return this.#listens.flatMap(({ uris }) => uris);
  }

  async watch(uris: readonly string[]): Promise<void> {
    const listen = await this.client.listen({ resourceSubscriptions: [...uris] });
    this.#listens.push({ uris, close: () => listen.close() });
    await this.readAll(uris);
  }

  async unwatch(pick: (count: number) => number): Promise<void> {
    const [listen] = this.#listens.splice(pick(this.#listens.length), 1);
    for (const uri of listen?.uris ?? []) this.told.delete(uri);
    await listen?.close();
  }
}

/** 2025-11-25: `resources/subscribe` for each URI, `resources/unsubscribe` for one. */
class SubscribeWatcher extends Watcher {
  readonly #uris: string[] = [];

  constructor(
    client: Client,
    private readonly pushStreamOpen: Promise<void>,
  ) {
    super("subscribe", client);
    client.setNotificationHandler("notifications/resources/updated", ({ params }) =>
      this.reread(params.uri),
    );
  }

  watching(): readonly string[] {
    return this.#uris;
  }

  async watch(uris: readonly string[]): Promise<void> {
    await this.pushStreamOpen;
    await Promise.all(uris.map((uri) => this.client.subscribeResource({ uri })));
    this.#uris.push(...uris);
    await this.readAll(uris);
  }

  async unwatch(pick: (count: number) => number): Promise<void> {
    const [uri] = this.#uris.splice(pick(this.#uris.length), 1);
    if (uri === undefined) return;
    this.told.delete(uri);
    await this.client.unsubscribeResource({ uri });
  }
}

/**
 * A host that only calls tools: the watch tool in a loop, each call with `resources` from the
 * answer before, as the tool's description says; a call is cancelled and made again whenever the
 * URIs change. What it is told is only what an answer listed as changed, with its contents.
 */
class WatchToolWatcher extends Watcher {
  readonly #uris: string[] = [];
  /** The version of each URI the next call gives: the last answer's `resources`. */
  readonly #next = new Map<string, string>();
  #call: AbortController | undefined;
  #looping: Promise<void> | undefined;
  #closed = false;

  constructor(
    client: Client,
    private readonly tool: string,
  ) {
    super("watch tool", client);
  }

  watching(): readonly string[] {
    return this.#uris;
  }

  async watch(uris: readonly string[]): Promise<void> {
    this.#uris.push(...uris);
    await this.#restart();
  }

  async unwatch(pick: (count: number) => number): Promise<void> {
    const [uri] = this.#uris.splice(pick(this.#uris.length), 1);
    if (uri !== undefined) {
      this.told.delete(uri);
      this.#next.delete(uri);
    }
    await this.#restart();
  }

  override async close(): Promise<void> {
    this.#closed = true;
    this.#call?.abort();
    await this.#looping;
    await super.close();
  }

  /**
   * Cancels the call waiting (it holds the old URIs) and calls again; a URI without a version
   * answers at once, so a new one is read before this resolves.
   */
  async #restart(): Promise<void> {
    this.#call?.abort();
    await this.#looping;
    if (this.#uris.length === 0) return;
    if (this.#uris.some((uri) => !this.#next.has(uri))) await this.#answer();
    this.#looping = this.#loop();
  }

  async #loop(): Promise<void> {
    while (!this.#closed) {
      try {
        await this.#answer();
      } catch (error) {
        if (this.#call?.signal.aborted) return;
        throw error;
      }
    }
  }

  /** One call, waiting 2 s at most: what it says changed is what the watcher was told. */
  async #answer(): Promise<void> {
    const call = (this.#call = new AbortController());
    const resources = this.#uris.map((uri) => {
      const version = this.#next.get(uri);
      return version === undefined ? { uri } : { uri, version };
    });
    const result = await this.client.callTool(
      { name: this.tool, arguments: { resources, timeoutMs: 2_000 } },
      { signal: call.signal, timeout: ANSWER_WITHIN_MS },
    );
    if (result.isError) throw new Error(`the watch tool failed: ${JSON.stringify(result.content)}`);
    const answer = result.structuredContent as unknown as WatchAnswer;
    if (call.signal.aborted) return;
    for (const { uri, version } of answer.resources)
      if (this.#uris.includes(uri)) this.#next.set(uri, version);
    for (const { uri, version } of answer.changed) {
      if (!this.#uris.includes(uri)) continue;
      if (this.told.has(uri)) this.heard.add(uri);
      this.told.set(uri, version);
    }
  }
}

/** A watcher of `kind` connected to the endpoint at `url`. */
export async function connectWatcher(url: URL, kind: WatcherKind, tool: string): Promise<Watcher> {
  const era = kind === "listen" ? "2026-07-28" : "2025-11-25";
  const { client, pushStreamOpen } = await connectClient(url, era);
  if (kind === "listen") return new ListenWatcher(client);
  if (kind === "subscribe") return new SubscribeWatcher(client, pushStreamOpen);
  return new WatchToolWatcher(client, tool);
}
