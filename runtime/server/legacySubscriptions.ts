import type { AuthInfo } from "@modelcontextprotocol/server";
import { shortened } from "./protocolErrors.ts";
import { resolveUri } from "./resolveUri.ts";
import type { ServedApp } from "./servedApp.ts";
import { holderOf, limitReached } from "./subscriptionLimits.ts";

/**
 * One 2025-era connection's `resources/subscribe` subscriptions, by URI as the client sent it.
 * Subscribing to a URI twice is one subscription; unsubscribing from one never subscribed is a
 * no-op, as the spec allows.
 */
export class LegacySubscriptions {
  readonly #served: ServedApp;
  readonly #notify: (uri: string) => void;
  /** Settles to the subscription's remover once its first run taught the registry what it reads. */
  readonly #byUri = new Map<
    string,
    { watching: Promise<() => void>; holder: string | undefined }
  >();

  constructor(served: ServedApp, notify: (uri: string) => void) {
    this.#served = served;
    this.#notify = notify;
  }

  /** Throws what a read of `uri` would throw when it does not resolve, or the limit error. */
  async subscribe(uri: string, auth: AuthInfo | undefined): Promise<void> {
    const existing = this.#byUri.get(uri);
    if (existing) {
      await existing.watching;
      return;
    }
    const resolved = resolveUri(this.#served, uri, auth);
    const { ledger } = this.#served;
    if (this.#byUri.size >= ledger.limits.perConnection)
      throw limitReached(ledger.limits, "perConnection", `subscribing to ${shortened(uri)}`);
    const holder = holderOf(auth);
    const { room, limit } = ledger.room(holder);
    if (room < 1) throw limitReached(ledger.limits, limit, `subscribing to ${shortened(uri)}`);
    ledger.take(holder, 1);
    const watching = this.#served.watch(resolved, this.#notify);
    this.#byUri.set(uri, { watching, holder });
    await watching;
  }

  unsubscribe(uri: string): void {
    const subscription = this.#byUri.get(uri);
    if (!subscription) return;
    this.#byUri.delete(uri);
    this.#served.ledger.give(subscription.holder, 1);
    void subscription.watching.then((remove) => remove());
  }

  clear(): void {
    for (const uri of [...this.#byUri.keys()]) this.unsubscribe(uri);
  }
}
