import type { AuthInfo } from "@modelcontextprotocol/server";
import { shortened } from "../text/cutText.ts";
import type { LastResult } from "./lastResult.ts";
import type { Listened, LiveRoom, WatchedRun } from "./liveRoom.ts";
import type { LimitName } from "./subscriptionLimits.ts";
import type { WatchRefusal } from "./watchRefusal.ts";
import type { Notify } from "./watchGroups.ts";

/** What a client was doing when a subscription to `uri` went over a limit. */
export function subscribingTo(uri: string): string {
  return `subscribing to ${shortened(uri)}`;
}

/** A key of a connection's watches: a listen's request id, or a subscribed URI. */
export type WatchKey = string | number;

interface Watch {
  readonly size: number;
  readonly runs: ReadonlyMap<string, WatchedRun>;
  /** Whom its runs are for. */
  readonly auth: AuthInfo | undefined;
  /** Whom its URIs count against. */
  readonly holder: string | undefined;
  /** Settles to the removers once the first runs taught the registry what each URI reads. */
  readonly watching: Promise<(() => void)[]>;
}

/**
 * One connection's watches, by key: its listens (by request id) or its 2025-era subscriptions
 * (by URI as the client sent it). Their URIs count together against `perConnection`.
 */
export class Watches {
  readonly #room: LiveRoom;
  readonly #notify: Notify;
  readonly #open = new Map<WatchKey, Watch>();

  constructor(room: LiveRoom, notify: Notify) {
    this.#room = room;
    this.#notify = notify;
  }

  /** URIs watched. */
  get size(): number {
    let size = 0;
    for (const watch of this.#open.values()) size += watch.size;
    return size;
  }

  /**
   * Watches under `key`, instead of what it watched before, each URI of `requested` a read
   * would serve, once, in the client's order, as many as the limits leave room for; resolves
   * once each has run once. Refused only when a limit leaves room for none of them.
   */
  async listen(
    key: WatchKey,
    requested: readonly string[],
    auth: AuthInfo | undefined,
  ): Promise<Listened> {
    const holder = this.#room.holderOf(auth);
    const { room, limit } = this.#roomFor(holder);
    const admitted = new Map<string, WatchedRun>();
    const unchanging = new Set<string>();
    for (const uri of requested) {
      if (admitted.has(uri)) continue;
      if (this.#room.isStatic(uri)) {
        unchanging.add(uri);
        continue;
      }
      const run = this.#resolved(uri, auth);
      if (!run) continue;
      if (admitted.size >= room) {
        if (admitted.size > 0) break;
        return { refused: this.#room.refusal(limit, "listening to more URIs") };
      }
      admitted.set(uri, run);
    }
    await this.#watch(key, admitted, auth, holder);
    return { watched: [...admitted.keys(), ...unchanging] };
  }

  /**
   * Watches under `key` every URI of `runs` (each resolved by the caller), or none: the limit
   * error when they do not all fit. Resolves once each has run once.
   */
  async watchEvery(
    key: WatchKey,
    runs: ReadonlyMap<string, WatchedRun>,
    auth: AuthInfo | undefined,
  ): Promise<{ refused: WatchRefusal } | undefined> {
    const holder = this.#room.holderOf(auth);
    const { room, limit } = this.#roomFor(holder);
    if (runs.size > room)
      return { refused: this.#room.refusal(limit, `watching ${runs.size} URIs`) };
    await this.#watch(key, runs, auth, holder);
    return undefined;
  }

  /**
   * Watches `uri` under itself; subscribing to it again is the same watch. Throws what a read
   * of `uri` would throw, or the limit error when there is no room for it. Resolves with what
   * it returned when watched (JSON text): a watch ended meanwhile no longer tells. A static
   * resource is acknowledged, watching nothing.
   */
  async subscribe(uri: string, auth: AuthInfo | undefined): Promise<string | undefined> {
    if (this.#room.isStatic(uri)) return undefined;
    const existing = this.#open.get(uri);
    if (existing) {
      const run = existing.runs.get(uri)!;
      await existing.watching;
      return this.#room.registry.lastResultOf(run.command, run.args, existing.auth);
    }
    const run = this.#room.resolve(uri, auth);
    const holder = this.#room.holderOf(auth);
    const { room, limit } = this.#roomFor(holder);
    if (room < 1) throw this.#room.wire.limitReached(this.#room.refusal(limit, subscribingTo(uri)));
    return (await this.#watch(uri, new Map([[uri, run]]), auth, holder)).get(uri);
  }

  /** The keys watched: listen ids, or subscribed URIs. */
  keys(): WatchKey[] {
    return [...this.#open.keys()];
  }

  /** What `uri`, watched under `key`, last returned (JSON text); undefined when not watched. */
  lastResultOf(key: WatchKey, uri: string): string | undefined {
    const watch = this.#open.get(key);
    const run = watch?.runs.get(uri);
    return run && this.#room.registry.lastResultOf(run.command, run.args, watch!.auth);
  }

  /** What `uri`, watched under `key`, returns once the runs owed to it are done. */
  async settledResultOf(key: WatchKey, uri: string): Promise<LastResult | undefined> {
    const watch = this.#open.get(key);
    const run = watch?.runs.get(uri);
    return run && this.#room.registry.settledResultOf(run.command, run.args, watch!.auth);
  }

  /** What `uri`, watched under `key`, returns as last run. */
  resultOf(key: WatchKey, uri: string): LastResult | undefined {
    const watch = this.#open.get(key);
    const run = watch?.runs.get(uri);
    return run && this.#room.registry.resultOf(run.command, run.args, watch!.auth);
  }

  /** Ends what `key` watches, giving its room back; a key that watches nothing is a no-op. */
  end(key: WatchKey): void {
    const watch = this.#open.get(key);
    if (!watch) return;
    this.#open.delete(key);
    this.#room.ledger.give(watch.holder, watch.size);
    void watch.watching.then((removers) => removers.forEach((remove) => remove()));
  }

  endAll(): void {
    for (const key of [...this.#open.keys()]) this.end(key);
  }

  /**
   * How many more URIs this connection may watch for `holder`, and the limit that bounds it:
   * the one place `perConnection` is checked, with the holder's share and the total.
   */
  #roomFor(holder: string | undefined): { room: number; limit: LimitName } {
    const own = this.#room.limits.perConnection - this.size;
    const shared = this.#room.ledger.room(holder);
    return own <= shared.room ? { room: own, limit: "perConnection" } : shared;
  }

  /** What `uri` runs, or undefined where a read would refuse it: a listen drops those URIs. */
  #resolved(uri: string, auth: AuthInfo | undefined): WatchedRun | undefined {
    try {
      return this.#room.resolve(uri, auth);
    } catch {
      return undefined;
    }
  }

  /**
   * Watches `runs` under `key`; resolves with what each URI returned when first watched, taken
   * as each is registered: a watch ended meanwhile is released right after, and tells nothing.
   */
  async #watch(
    key: WatchKey,
    runs: ReadonlyMap<string, WatchedRun>,
    auth: AuthInfo | undefined,
    holder: string | undefined,
  ): Promise<Map<string, string | undefined>> {
    this.end(key);
    const results = new Map<string, string | undefined>();
    if (runs.size === 0) return results;
    this.#room.ledger.take(holder, runs.size);
    const registry = this.#room.registry;
    const watching = Promise.all(
      [...runs].map(async ([uri, { command, args }]) => {
        const subscriber = { uri, notify: this.#notify, ...(holder !== undefined && { holder }) };
        const remove = await registry.add(command, args, subscriber, auth);
        results.set(uri, registry.lastResultOf(command, args, auth));
        return remove;
      }),
    );
    this.#open.set(key, { size: runs.size, runs, auth, holder, watching });
    await watching;
    return results;
  }
}
