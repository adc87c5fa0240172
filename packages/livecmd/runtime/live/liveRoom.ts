import type { AuthInfo } from "@modelcontextprotocol/server";
import type { App } from "../model/app.ts";
import type { LastResult } from "./lastResult.ts";
import { LiveRegistry, type LiveRegistryOptions } from "./liveRegistry.ts";
import { OpenCount } from "./openCount.ts";
import type { SubscriptionLimits } from "./limitDefaults.ts";
import type { RefusalWire, WatchRefusal } from "./watchRefusal.ts";
import { SubscriptionLedger, subscriptionLimits, type LimitName } from "./subscriptionLimits.ts";
import { notifiedVersion } from "./resultVersion.ts";
import { Watches } from "./watches.ts";
import type { Notify } from "./watchGroups.ts";

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
      /** The version an update of `uri` carries now (`notifiedVersion`). */
      readonly versionOf: (uri: string) => string | undefined;
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

  /** One connection's watches (a stdio connection, a 2025 session); `notify` on a change. */
  watches(notify: Notify): Watches {
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
    notify: Notify,
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
      versionOf: (uri) => notifiedVersion(watches.lastResultOf(SOLE_KEY, uri)),
      close,
    };
  }

  /**
   * Opens a watch of the watch tool: every URI of `requested` or none. Each is checked as a read
   * of it by `auth` would be (all refusals are told together), and the call counts as a listen:
   * its URIs against `perConnection`, the holder's share and the total, and itself against
   * `listensPerPrincipal` and `listensTotal` while it waits (giving way to a newcomer past the
   * total once it has waited `GIVE_WAY_AFTER_MS`). `notify` on each change.
   */
  async openWatch(
    requested: readonly string[],
    auth: AuthInfo | undefined,
    notify: Notify,
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

/** The one key of the watches of an HTTP listen or a watch call: each is its own connection. */
const SOLE_KEY = 0;
