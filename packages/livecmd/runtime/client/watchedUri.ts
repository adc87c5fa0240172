import type { Client, McpSubscription } from "@modelcontextprotocol/client";
import { VERSION_META_KEY } from "../model/resultMeta.ts";
import { jsonTextOf } from "./jsonText.ts";

export interface Watch {
  /** Stops handing values to this watcher; the URI is unsubscribed once no watcher is left. */
  close(): Promise<void>;
}

interface Watcher {
  onChange(value: unknown): void;
  onError(error: unknown): void;
  /** The text it was last handed: a value is handed on only when it changed. */
  last?: string;
  /** Settles `watch()`: with the first value, or the first read's error. */
  first?: { resolve(): void; reject(error: unknown): void };
}

/** Every read after an update goes to the server: the client's response cache may hold the old value. */
const FRESH = { cacheMode: "bypass" } as const;

/**
 * One URI watched on one client, shared by every `watch()` of it: one subscription (2026-07-28:
 * a `subscriptions/listen`; 2025 era: `resources/subscribe`), and one read at a time after each
 * `notifications/resources/updated`, read again if another came meanwhile; none after one whose
 * version is the one last read (a read that already returned what it tells of).
 */
export class WatchedUri {
  readonly #client: Client;
  readonly #uri: string;
  readonly #onIdle: () => void;
  readonly #watchers = new Set<Watcher>();
  readonly #subscribed: Promise<() => Promise<void>>;
  #stale = false;
  #reading: Promise<void> | undefined;
  /** The version the last read returned (`_meta`), when the server told it. */
  #version: unknown;

  constructor(client: Client, uri: string, onIdle: () => void) {
    this.#client = client;
    this.#uri = uri;
    this.#onIdle = onIdle;
    this.#subscribed = this.#subscribe();
    this.#subscribed.catch(() => this.#onIdle());
  }

  /** Resolves once subscribed and the watcher has had its first value. */
  async add(onChange: (value: unknown) => void, onError: (error: unknown) => void): Promise<Watch> {
    const watcher: Watcher = { onChange, onError };
    const first = new Promise<void>((resolve, reject) => (watcher.first = { resolve, reject }));
    this.#watchers.add(watcher);
    try {
      await this.#subscribed;
      // Read once subscribed, so that no change between the read and the subscription is missed.
      this.changed();
      await first;
    } catch (error) {
      await this.#remove(watcher);
      throw error;
    }
    return { close: () => this.#remove(watcher) };
  }

  /** A `notifications/resources/updated` for this URI arrived, telling `version` when known. */
  changed(version?: unknown): void {
    if (version !== undefined && version === this.#version && !this.#reading) return;
    this.#stale = true;
    this.#reading ??= this.#readWhileStale();
  }

  async #readWhileStale(): Promise<void> {
    while (this.#stale) {
      this.#stale = false;
      try {
        const read = await this.#client.readResource({ uri: this.#uri }, FRESH);
        this.#version = read.contents[0]?._meta?.[VERSION_META_KEY];
        this.#deliver(jsonTextOf(this.#uri, read));
      } catch (error) {
        this.#version = undefined;
        this.#fail(error);
      }
    }
    // Cleared in the same step as the last check, so a change after it starts a new loop.
    this.#reading = undefined;
  }

  #deliver(text: string): void {
    for (const watcher of this.#watchers) {
      if (watcher.last === text) continue;
      watcher.last = text;
      try {
        watcher.onChange(JSON.parse(text));
      } catch (error) {
        watcher.onError(error);
      }
      watcher.first?.resolve();
      delete watcher.first;
    }
  }

  #fail(error: unknown): void {
    for (const watcher of this.#watchers) {
      if (watcher.first) watcher.first.reject(error);
      else watcher.onError(error);
    }
  }

  async #remove(watcher: Watcher): Promise<void> {
    if (!this.#watchers.delete(watcher) || this.#watchers.size > 0) return;
    this.#onIdle();
    const unsubscribe = await this.#subscribed.catch(() => undefined);
    await unsubscribe?.();
  }

  /** Subscribes on the connection's era; resolves with how to unsubscribe. */
  async #subscribe(): Promise<() => Promise<void>> {
    if (this.#client.getProtocolEra() !== "modern") {
      await this.#client.subscribeResource({ uri: this.#uri });
      return async () => void (await this.#client.unsubscribeResource({ uri: this.#uri }));
    }
    const listen = await this.#client.listen({ resourceSubscriptions: [this.#uri] });
    if (!listen.honoredFilter.resourceSubscriptions?.includes(this.#uri)) {
      await listen.close();
      throw new Error(`livecmd: the server did not agree to watch ${this.#uri}`);
    }
    void this.#endedBy(listen);
    return () => listen.close();
  }

  /** A listen the server ended, or whose stream dropped, tells every watcher: no more values come. */
  async #endedBy(listen: McpSubscription): Promise<void> {
    const end = await listen.closed;
    if (end === "local") return;
    this.#onIdle();
    this.#fail(new Error(`livecmd: the watch of ${this.#uri} ended (${end}); watch it again`));
    this.#watchers.clear();
  }
}
