import type { Client } from "@modelcontextprotocol/client";
import type { ResourceUri } from "../uri/resourceUri.ts";
import { jsonTextOf } from "./jsonText.ts";
import { LAST_MODIFIED_META_KEY, VERSION_META_KEY } from "../model/resultMeta.ts";
import { WatchedUri, type Watch } from "./watchedUri.ts";

export type { Watch } from "./watchedUri.ts";

/** A value read, with its version and, where the server knows it, when it last changed. */
export interface Versioned<Result> {
  readonly value: Result;
  readonly version: string;
  /** ISO 8601. */
  readonly lastModified?: string;
}

export interface WatchOptions {
  /** A re-read that failed, or a watch the server ended; `console.error` when absent. */
  onError?: (error: unknown) => void;
}

/**
 * Reads and watches a livecmd server's resources through the SDK's `Client`, typed by the URI:
 * a `ResourceUri<R>` from a generated `uris.*` builder reads as `R`, a plain string as `unknown`.
 * Values are the JSON the server sent, parsed; nothing checks them against the type here (the
 * server does with `LIVECMD_CHECK_RESULTS=1`, tests do with `livecmd/testing`).
 *
 * Watching takes over the client's `notifications/resources/updated` handler.
 */
export class TypedClient {
  readonly client: Client;
  readonly #watched = new Map<string, WatchedUri>();
  #routing = false;

  constructor(client: Client) {
    this.client = client;
  }

  /** The value `uri` reads as now. */
  read<Result>(uri: ResourceUri<Result>): Promise<Result>;
  read(uri: string): Promise<unknown>;
  async read(uri: string): Promise<unknown> {
    return JSON.parse(jsonTextOf(uri, await this.client.readResource({ uri })));
  }

  /**
   * The value `uri` reads as now, with its version (the digest the watch tool compares; equal
   * values have one version) and, where the server knows it, when it last changed.
   */
  readVersioned<Result>(uri: ResourceUri<Result>): Promise<Versioned<Result>>;
  readVersioned(uri: string): Promise<Versioned<unknown>>;
  async readVersioned(uri: string): Promise<Versioned<unknown>> {
    const result = await this.client.readResource({ uri });
    const meta = result.contents[0]?._meta ?? {};
    const version = meta[VERSION_META_KEY];
    if (typeof version !== "string")
      throw new Error(`livecmd: reading ${uri} gave no version; is this a livecmd server?`);
    const lastModified = meta[LAST_MODIFIED_META_KEY];
    return {
      value: JSON.parse(jsonTextOf(uri, result)),
      version,
      ...(typeof lastModified === "string" && { lastModified }),
    };
  }

  /**
   * Subscribes to `uri` (2026-07-28: `subscriptions/listen`; 2025 era: `resources/subscribe`),
   * hands `onChange` its value now and again after every change the server notifies. Resolves
   * once the first value was handed; rejects when the server will not watch the URI.
   */
  watch<Result>(
    uri: ResourceUri<Result>,
    onChange: (value: Result) => void,
    options?: WatchOptions,
  ): Promise<Watch>;
  watch(uri: string, onChange: (value: unknown) => void, options?: WatchOptions): Promise<Watch>;
  watch(
    uri: string,
    onChange: (value: unknown) => void,
    options: WatchOptions = {},
  ): Promise<Watch> {
    this.#routeUpdates();
    let watched = this.#watched.get(uri);
    if (!watched) {
      const created: WatchedUri = new WatchedUri(this.client, uri, () => {
        if (this.#watched.get(uri) === created) this.#watched.delete(uri);
      });
      this.#watched.set(uri, (watched = created));
    }
    return watched.add(onChange, options.onError ?? ((error) => console.error(error)));
  }

  #routeUpdates(): void {
    if (this.#routing) return;
    this.#routing = true;
    this.client.setNotificationHandler("notifications/resources/updated", ({ params }) =>
      this.#watched.get(params.uri)?.changed(params._meta?.[VERSION_META_KEY]),
    );
  }
}
