import type { AuthInfo } from "@modelcontextprotocol/server";
import type { App } from "../model/app.ts";
import { shortened } from "../text/cutText.ts";
import { keepServing } from "../problems/keepServing.ts";
import { LiveRegistry, type LastResult, type LiveRegistryOptions } from "./liveRegistry.ts";
import { OpenCount } from "./openCount.ts";
import type { SubscriptionLimits } from "./limitDefaults.ts";
import type { RefusalWire, WatchRefusal } from "./watchRefusal.ts";
import { SubscriptionLedger, subscriptionLimits, type LimitName } from "./subscriptionLimits.ts";

/** What watching a URI re-runs: the command and arguments a read of it runs. */
export interface WatchedRun {
  readonly command: string;
  readonly args: readonly unknown[];
}

export interface LiveRoomOptions {
  /** `DEFAULT_SUBSCRIPTION_LIMITS` for what is not given, a share by its `fairShare`. */
  readonly limits?: Partial<SubscriptionLimits>;
  /**
   * What a read of `uri` by `auth` runs; throws what that read would throw (a URI the grant
   * hides, invalid arguments), so reads and watches accept exactly the same URIs.
   */
  readonly resolve: (uri: string, auth: AuthInfo | undefined) => WatchedRun;
  /**
   * Whether `uri` is a resource that does not change while served (the agent skill's files): a
   * listen or subscription of it is acknowledged, as the `subscribe` capability promises for
   * every listed resource, and watches nothing.
   */
  readonly isStatic?: (uri: string) => boolean;
  /** Whom `auth`'s watches count against for the per-principal shares; undefined: the totals alone. */
  readonly holderOf: (auth: AuthInfo | undefined) => string | undefined;
  /** How the server answers the room's refusals on the wire (its error module's `LIVE_REFUSALS`). */
  readonly wire: RefusalWire;
  /** Told of the re-runs that threw, once per command per burst. */
  readonly onError: NonNullable<LiveRegistryOptions["onError"]>;
  /** Told once per command whose run made no statement livecmd saw. */
  readonly onUnseen?: LiveRegistryOptions["onUnseen"];
}

/**
 * An open watch of the watch tool: what each URI returns now (once the runs a write owed it are
 * done), and what ends it (once, however often called); or why it was not opened: a URI a read
 * would refuse (each, with the error its read gets), or a limit.
 */
export type OpenWatch =
  | {
      readonly settledResultOf: (uri: string) => Promise<LastResult | undefined>;
      readonly resultOf: (uri: string) => LastResult | undefined;
      /**
       * Fires when the server drains (the client calls again elsewhere), or when the call gives
       * way to a newcomer (`GIVE_WAY_AFTER_MS`): the watch answers at once.
       */
      readonly answerNow: AbortSignal;
      readonly close: () => void;
    }
  | { readonly unreadable: readonly { uri: string; error: unknown }[] }
  | { readonly refused: WatchRefusal };

/** What a listen watches, or the limit error when the limits leave room for none of its URIs. */
export type Listened = { readonly watched: string[] } | { readonly refused: WatchRefusal };

/**
 * An open 2026-07-28 HTTP listen: what it watches, what each of its URIs last returned (JSON
 * text; undefined once closed), and what ends it (once, however often called).
 */
export type OpenListen =
  | {
      readonly watched: string[];
      readonly lastResultOf: (uri: string) => string | undefined;
      readonly close: () => void;
    }
  | { readonly refused: WatchRefusal };

/**
 * How long a watch call waits before it gives way: when a watch or listen would go over
 * `listensTotal`, the call that has waited longest, if this long, answers at once (as at its
 * timeout; the client calls again) and the newcomer takes its place. Without auth a holder is a
 * TCP connection and a process holding thousands of waiting calls holds as many connections,
 * each within its share: giving way is what keeps it from shutting every other client out. An
 * admitted call waits at least this long; each early answer is paid for by the request that
 * asked for its place.
 */
export const GIVE_WAY_AFTER_MS = 1000;

/** A watch call waiting: since when, and its early answer. */
interface WaitingCall {
  readonly since: number;
  giveWay(): void;
}

/**
 * Where every URI the server watches is admitted, registered and released, for the stdio and
 * HTTP listens of 2026-07-28 and the 2025 era's `resources/subscribe` alike. A URI is watched
 * when a read of it would be served and the limits leave room for it: its connection's
 * (`perConnection`), its holder's share and the server's total. Its group, read set and change
 * matching are the registry's.
 */
export class LiveRoom {
  readonly limits: SubscriptionLimits;
  /** Every watched URI's group, re-run on the app's writes. */
  readonly registry: LiveRegistry;
  /** The URIs watched, by holder and in all. */
  readonly ledger: SubscriptionLedger;
  readonly resolve: LiveRoomOptions["resolve"];
  readonly isStatic: NonNullable<LiveRoomOptions["isStatic"]>;
  readonly holderOf: LiveRoomOptions["holderOf"];
  readonly wire: RefusalWire;
  /** The open 2026-07-28 HTTP listen streams and watch calls. */
  readonly #listens: OpenCount;
  /** Aborted when the server drains: every watch call waiting answers. */
  readonly #draining = new AbortController();
  /** The watch calls waiting, longest-waiting first. */
  readonly #waitingCalls = new Set<WaitingCall>();

  constructor(app: App, options: LiveRoomOptions) {
    this.limits = subscriptionLimits(options.limits);
    this.ledger = new SubscriptionLedger(this.limits);
    this.#listens = new OpenCount(this.limits, "listensPerPrincipal", "listensTotal");
    this.resolve = options.resolve;
    this.isStatic = options.isStatic ?? (() => false);
    this.holderOf = options.holderOf;
    this.wire = options.wire;
    this.registry = new LiveRegistry(app, {
      onError: options.onError,
      ...(options.onUnseen && { onUnseen: options.onUnseen }),
    });
  }

  /** The refusal for going over `limit` while doing `what`. */
  refusal(limit: LimitName, what: string): WatchRefusal {
    return { limit, value: this.limits[limit], what };
  }

  /** One connection's watches (a stdio connection, a 2025 session); `notify(uri)` on a change. */
  watches(notify: (uri: string) => void): Watches {
    return new Watches(this, notify);
  }

  /**
   * Opens a 2026-07-28 HTTP listen of `requested` for `auth`. A stateless client holds nothing
   * open but its listen streams, so each listen is its own connection for `perConnection`; and
   * its stream counts against `listensPerPrincipal` and `listensTotal` until it closes, so that
   * no holder takes every stream the SDK's handler keeps.
   */
  async openListen(
    requested: readonly string[],
    auth: AuthInfo | undefined,
    notify: (uri: string) => void,
  ): Promise<OpenListen> {
    const holder = this.holderOf(auth);
    const full = this.#countListen(holder);
    if (full) return { refused: this.refusal(full, "opening another listen") };
    const watches = this.watches(notify);
    const listened = await watches.listen(SOLE_KEY, requested, auth);
    if ("refused" in listened) {
      this.#listens.close(holder);
      return listened;
    }
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      watches.endAll();
      this.#listens.close(holder);
    };
    return {
      watched: listened.watched,
      lastResultOf: (uri) => watches.lastResultOf(SOLE_KEY, uri),
      close,
    };
  }

  /**
   * Opens a watch of the watch tool: every URI of `requested` or none. Each is checked as a read
   * of it by `auth` would be (all refusals are told together), and the call counts as a listen:
   * its URIs against `perConnection`, the holder's share and the total, and itself against
   * `listensPerPrincipal` and `listensTotal` while it waits (giving way to a newcomer past the
   * total once it has waited `GIVE_WAY_AFTER_MS`). `notify(uri)` on each change.
   */
  async openWatch(
    requested: readonly string[],
    auth: AuthInfo | undefined,
    notify: (uri: string) => void,
  ): Promise<OpenWatch> {
    const runs = new Map<string, WatchedRun>();
    const unreadable: { uri: string; error: unknown }[] = [];
    for (const uri of new Set(requested)) {
      try {
        runs.set(uri, this.resolve(uri, auth));
      } catch (error) {
        unreadable.push({ uri, error });
      }
    }
    if (unreadable.length > 0) return { unreadable };
    const holder = this.holderOf(auth);
    const full = this.#countListen(holder);
    if (full) return { refused: this.refusal(full, "watching more") };
    const watches = this.watches(notify);
    const refusal = await watches.watchEvery(SOLE_KEY, runs, auth);
    if (refusal) {
      this.#listens.close(holder);
      return refusal;
    }
    return this.#waiting(watches, holder);
  }

  /**
   * Counts a listen or watch call of `holder` from its start (one opened while its first runs go
   * on sees it), or names the limit it would go over. Past `listensTotal` alone, the watch call
   * that has waited longest gives way to it if it has waited `GIVE_WAY_AFTER_MS`.
   */
  #countListen(holder: string | undefined): LimitName | undefined {
    const [longest] = this.#waitingCalls;
    if (
      this.#listens.full(holder) === "listensTotal" &&
      !this.#listens.shareFull(holder) &&
      longest &&
      performance.now() - longest.since >= GIVE_WAY_AFTER_MS
    )
      longest.giveWay();
    const full = this.#listens.full(holder);
    if (!full) this.#listens.open(holder);
    return full;
  }

  /** A watch call that waits, counted as a listen until it ends or gives way. */
  #waiting(watches: Watches, holder: string | undefined): OpenWatch {
    const gaveWay = new AbortController();
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      this.#waitingCalls.delete(call);
      this.#listens.close(holder);
    };
    const call: WaitingCall = {
      since: performance.now(),
      giveWay: () => (uncount(), gaveWay.abort()),
    };
    this.#waitingCalls.add(call);
    return {
      settledResultOf: (uri) => watches.settledResultOf(SOLE_KEY, uri),
      resultOf: (uri) => watches.resultOf(SOLE_KEY, uri),
      answerNow: AbortSignal.any([this.#draining.signal, gaveWay.signal]),
      close: () => {
        watches.endAll();
        uncount();
      },
    };
  }

  /** The server drains: every watch call waiting answers now. */
  drain(): void {
    this.#draining.abort();
  }

  /** Stops re-running on writes; the watches stay until their connections end them. */
  close(): void {
    this.drain();
    this.registry.close();
  }
}

/** What a client was doing when a subscription to `uri` went over a limit. */
export function subscribingTo(uri: string): string {
  return `subscribing to ${shortened(uri)}`;
}

/** The one key of the watches of an HTTP listen or a watch call: each is its own connection. */
const SOLE_KEY = 0;

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
  readonly #notify: (uri: string) => void;
  readonly #open = new Map<WatchKey, Watch>();

  constructor(room: LiveRoom, notify: (uri: string) => void) {
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

/**
 * `publish(uri)` at most once per URI per turn of the event loop. Every subscriber of a URI sits
 * in the same registry group and is notified in one synchronous loop, while the SDK fans one
 * `resources/updated` out to every listen whose filter holds that URI: publishing once per
 * subscriber would give each of those listens one copy per subscriber.
 */
export function oncePerTurn(publish: (uri: string) => void): (uri: string) => void {
  const pending = new Set<string>();
  const flush = keepServing("telling clients of changed resources", () => {
    const uris = [...pending];
    pending.clear();
    for (const each of uris) publish(each);
  });
  return (uri) => {
    if (pending.size === 0) queueMicrotask(flush);
    pending.add(uri);
  };
}
