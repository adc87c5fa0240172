import type { JSONRPCRequest } from "@modelcontextprotocol/server";
import { resolvesTo, type ResolvedUri } from "./resolveUri.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * The `resourceSubscriptions` of a 2026-07-28 `subscriptions/listen` request, or undefined for
 * any other message, and for a filter the SDK will refuse anyway (left untouched, so it does).
 */
export function requestedUris(message: unknown): string[] | undefined {
  if (!isListenRequest(message)) return undefined;
  const notifications = (message.params as { notifications?: unknown } | undefined)?.notifications;
  if (typeof notifications !== "object" || notifications === null) return undefined;
  const uris = (notifications as { resourceSubscriptions?: unknown }).resourceSubscriptions;
  return Array.isArray(uris) && uris.every((uri) => typeof uri === "string") ? uris : undefined;
}

/**
 * The listen request with its filter narrowed to `honored`. The SDK acknowledges
 * `resourceSubscriptions` verbatim (and drops it when empty), so narrowing the request is what
 * makes the acknowledgement tell the client which URIs are watched.
 */
export function narrowedTo(
  message: JSONRPCRequest,
  honored: readonly ResolvedUri[],
): JSONRPCRequest {
  const params = message.params as { notifications: Record<string, unknown> };
  return {
    ...message,
    params: {
      ...params,
      notifications: {
        ...params.notifications,
        resourceSubscriptions: honored.map((resolved) => resolved.uri),
      },
    },
  };
}

function isListenRequest(message: unknown): message is JSONRPCRequest {
  const candidate = message as Partial<JSONRPCRequest> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.method === "subscriptions/listen" &&
    candidate.id !== undefined
  );
}

/**
 * `publish(uri)` at most once per URI per turn of the event loop. Every subscriber of a URI sits
 * in the same registry group and is notified in one synchronous loop, while the SDK fans one
 * `resources/updated` out to every listen whose filter holds that URI: publishing once per
 * subscriber would give each of those listens one copy per subscriber.
 */
export function oncePerTurn(publish: (uri: string) => void): (uri: string) => void {
  const pending = new Set<string>();
  return (uri) => {
    if (pending.size === 0) {
      queueMicrotask(() => {
        const uris = [...pending];
        pending.clear();
        for (const each of uris) publish(each);
      });
    }
    pending.add(uri);
  };
}

interface OpenListen {
  readonly size: number;
  /** Settles to the removers once the first runs taught the registry what each URI reads. */
  readonly watching: Promise<(() => void)[]>;
}

/** The registrations of open 2026-07-28 listens, by a key that identifies each listen. */
export class ListenRegistrations<Key> {
  readonly #served: ServedApp;
  readonly #publish: (uri: string) => void;
  readonly #open = new Map<Key, OpenListen>();

  constructor(served: ServedApp, publish: (uri: string) => void) {
    this.#served = served;
    this.#publish = oncePerTurn(publish);
  }

  /** URIs watched by the open listens together. */
  get size(): number {
    let size = 0;
    for (const listen of this.#open.values()) size += listen.size;
    return size;
  }

  /**
   * What livecmd will watch of `requested`: each URI a read would accept (it resolves to a
   * granted command with valid arguments), once, in the client's order, at most `room` of them.
   */
  honor(requested: readonly string[], room: number): ResolvedUri[] {
    const honored = new Map<string, ResolvedUri>();
    for (const uri of requested) {
      if (honored.size >= room) break;
      if (honored.has(uri)) continue;
      const resolved = resolvesTo(this.#served, uri);
      if (resolved) honored.set(uri, resolved);
    }
    return [...honored.values()];
  }

  /** Watches the honored URIs for the listen `key`; resolves once each has run once. */
  async open(key: Key, honored: readonly ResolvedUri[]): Promise<void> {
    this.close(key);
    if (honored.length === 0) return;
    const watching = Promise.all(
      honored.map((resolved) => this.#served.watch(resolved, this.#publish)),
    );
    this.#open.set(key, { size: honored.length, watching });
    await watching;
  }

  close(key: Key): void {
    const listen = this.#open.get(key);
    if (!listen) return;
    this.#open.delete(key);
    void listen.watching.then((removers) => removers.forEach((remove) => remove()));
  }

  closeAll(): void {
    for (const key of [...this.#open.keys()]) this.close(key);
  }
}
