import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { resolveUri } from "./resolveUri.ts";
import { MAX_SUBSCRIPTIONS_PER_CONNECTION, type ServedApp } from "./servedApp.ts";

/**
 * One 2025-era connection's `resources/subscribe` subscriptions, by URI as the client sent it.
 * Subscribing to a URI twice is one subscription; unsubscribing from one never subscribed is a
 * no-op, as the spec allows.
 */
export class LegacySubscriptions {
  readonly #served: ServedApp;
  readonly #notify: (uri: string) => void;
  /** Settles to the subscription's remover once its first run taught the registry what it reads. */
  readonly #byUri = new Map<string, Promise<() => void>>();

  constructor(served: ServedApp, notify: (uri: string) => void) {
    this.#served = served;
    this.#notify = notify;
  }

  /** Throws what a read of `uri` would throw when it does not resolve, or the limit error. */
  async subscribe(uri: string): Promise<void> {
    const existing = this.#byUri.get(uri);
    if (existing) {
      await existing;
      return;
    }
    const resolved = resolveUri(this.#served, uri);
    if (this.#byUri.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) throw tooManySubscriptions(uri);
    const watching = this.#served.watch(resolved, this.#notify);
    this.#byUri.set(uri, watching);
    await watching;
  }

  unsubscribe(uri: string): void {
    const watching = this.#byUri.get(uri);
    if (!watching) return;
    this.#byUri.delete(uri);
    void watching.then((remove) => remove());
  }

  clear(): void {
    for (const uri of [...this.#byUri.keys()]) this.unsubscribe(uri);
  }
}

function tooManySubscriptions(uri: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Subscription limit reached: a connection may watch at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} URIs; unsubscribe from one before subscribing to ${uri}`,
    { uri, limit: MAX_SUBSCRIPTIONS_PER_CONNECTION },
  );
}
