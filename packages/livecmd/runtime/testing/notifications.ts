import { VERSION_META_KEY } from "../model/resultMeta.ts";
import {
  SUBSCRIPTION_ID_META_KEY,
  type Client,
  type Transport,
} from "@modelcontextprotocol/client";

export type ListKind = "resources" | "tools";

/** `list_changed` notifications as the client received them. */
export interface ListChanges {
  /** Resolves on the next `notifications/<kind>/list_changed`; rejects after `timeoutMs`. */
  next(kind: ListKind, timeoutMs?: number): Promise<void>;
  /** How many arrived so far. */
  count(kind: ListKind): number;
}

/** One `notifications/resources/updated`. */
export interface Update {
  readonly uri: string;
  /**
   * The version of what the URI reads as now (`_meta`), as a read's contents carry it; absent
   * when reading it now fails.
   */
  readonly version?: string;
}

export interface Updates extends AsyncIterable<string> {
  /** Resolves with the next update's URI; rejects if none arrives within `timeoutMs`. */
  next(timeoutMs?: number): Promise<string>;
  /** Resolves with the next update, its version included; rejects as `next` does. */
  nextUpdate(timeoutMs?: number): Promise<Update>;
}

/**
 * Sends each `notifications/resources/updated` to the listen it belongs to: by subscription id
 * on 2026-07-28 (a URI may be in several listens, each getting its own copy), by URI on the 2025
 * era (updates carry no id). The client has one handler per notification method, hence one
 * router per client; and `McpSubscription` hides its id, so the router reads it off the listen
 * request as the client sends it, which `Client.listen` does before it first awaits.
 */
export class UpdateRouter {
  readonly #byListenId = new Map<unknown, UpdateQueue>();
  readonly #byUri = new Map<string, Set<UpdateQueue>>();
  #lastListenId: unknown;

  constructor(client: Client) {
    client.setNotificationHandler("notifications/resources/updated", ({ params }) => {
      const version = params._meta?.[VERSION_META_KEY];
      const update = { uri: params.uri, ...(typeof version === "string" && { version }) };
      const listenId = params._meta?.[SUBSCRIPTION_ID_META_KEY];
      if (listenId !== undefined) return this.#byListenId.get(listenId)?.push(update);
      for (const queue of this.#byUri.get(params.uri) ?? []) queue.push(update);
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

export class UpdateQueue implements Updates {
  readonly #arrived: Update[] = [];
  readonly #waiting: ((result: IteratorResult<Update>) => void)[] = [];
  readonly #onEnd: () => void;
  ended = false;

  constructor(onEnd: () => void) {
    this.#onEnd = onEnd;
  }

  push(update: Update): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter({ value: update, done: false });
    else this.#arrived.push(update);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.#onEnd();
    for (const waiter of this.#waiting.splice(0)) waiter({ value: undefined, done: true });
  }

  async next(timeoutMs = 2000): Promise<string> {
    return (await this.nextUpdate(timeoutMs)).uri;
  }

  nextUpdate(timeoutMs = 2000): Promise<Update> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(new Error(`no notifications/resources/updated within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (result: IteratorResult<Update>) => {
        clearTimeout(timer);
        if (result.done)
          reject(new Error("the listen ended before the next notifications/resources/updated"));
        else resolve(result.value);
      };
      this.#take(waiter);
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () =>
        new Promise((resolve) =>
          this.#take((result) =>
            resolve(result.done ? result : { value: result.value.uri, done: false }),
          ),
        ),
    };
  }

  #take(waiter: (result: IteratorResult<Update>) => void): void {
    const update = this.#arrived.shift();
    if (update !== undefined) waiter({ value: update, done: false });
    else if (this.ended) waiter({ value: undefined, done: true });
    else this.#waiting.push(waiter);
  }
}

export class ListChangeRecorder implements ListChanges {
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
