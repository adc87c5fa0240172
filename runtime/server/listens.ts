import type { AuthInfo } from "@modelcontextprotocol/server";
import { resolvesTo, type ResolvedUri } from "./resolveUri.ts";
import { holderOf, type LimitName } from "./subscriptionLimits.ts";
import type { ServedApp } from "./servedApp.ts";

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
  /** Whom its URIs count against (`holderOf`). */
  readonly holder: string | undefined;
  /** Settles to the removers once the first runs taught the registry what each URI reads. */
  readonly watching: Promise<(() => void)[]>;
}

/** What a listen will watch, and the limit that cut it short, if one did. */
export interface Honored {
  uris: ResolvedUri[];
  /** Set when URIs a read would accept were left out for want of room. */
  limited: LimitName | undefined;
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
   * What livecmd will watch of `requested` for `auth`: each URI a read would accept (it
   * resolves to a command the principal may read, with valid arguments), once, in the client's
   * order, as many as `connectionRoom` and the server's limits leave room for.
   */
  honor(requested: readonly string[], connectionRoom: number, auth: AuthInfo | undefined): Honored {
    const ledger = this.#served.ledger.room(holderOf(auth));
    const [room, bound] =
      connectionRoom <= ledger.room
        ? [connectionRoom, "perConnection" as const]
        : [ledger.room, ledger.limit];
    const honored = new Map<string, ResolvedUri>();
    let limited: LimitName | undefined;
    for (const uri of requested) {
      if (honored.has(uri)) continue;
      const resolved = resolvesTo(this.#served, uri, auth);
      if (!resolved) continue;
      if (honored.size >= room) {
        limited = bound;
        break;
      }
      honored.set(uri, resolved);
    }
    return { uris: [...honored.values()], limited };
  }

  /** Watches the honored URIs for the listen `key`; resolves once each has run once. */
  async open(key: Key, honored: readonly ResolvedUri[], auth: AuthInfo | undefined): Promise<void> {
    this.close(key);
    if (honored.length === 0) return;
    const holder = holderOf(auth);
    this.#served.ledger.take(holder, honored.length);
    const watching = Promise.all(
      honored.map((resolved) => this.#served.watch(resolved, this.#publish)),
    );
    this.#open.set(key, { size: honored.length, holder, watching });
    await watching;
  }

  close(key: Key): void {
    const listen = this.#open.get(key);
    if (!listen) return;
    this.#open.delete(key);
    this.#served.ledger.give(listen.holder, listen.size);
    void listen.watching.then((removers) => removers.forEach((remove) => remove()));
  }

  closeAll(): void {
    for (const key of [...this.#open.keys()]) this.close(key);
  }
}
