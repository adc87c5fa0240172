import { resolvesTo, type ResolvedUri } from "./resolveUri.ts";
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
