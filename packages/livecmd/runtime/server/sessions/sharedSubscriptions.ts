import { createHash } from "node:crypto";
import type { AuthInfo, Server } from "@modelcontextprotocol/server";
import type { SessionStore } from "../../db/sharedState.ts";
import type { ClientConnection } from "../methods/clientConnection.ts";
import { shortened } from "../../text/cutText.ts";
import type { LiveRoom } from "../../live/liveRoom.ts";
import { notifiedVersion } from "../../live/resultVersion.ts";
import { subscribingTo, type Watches } from "../../live/watches.ts";
import { serveSubscriptions } from "../methods/subscribeResources.ts";

/**
 * The `resources/subscribe` subscriptions of a 2025-era session that many processes share: they
 * live in the session's table rows, any process may take one (it checks it as a read, as a
 * subscription here would be, and records it with a digest of its first result), and the
 * process holding the session's GET stream watches them all. That process re-runs each one it
 * takes up and notifies those whose result is not what the client last heard of, so a write
 * made while nobody held them (the process holding them was killed) is still told.
 */
export class SharedSubscriptions {
  readonly #store: SessionStore;
  readonly #id: string;
  readonly #room: LiveRoom;
  readonly #onerror: (error: Error) => void;
  #connection: ClientConnection | undefined;
  /** Whom the re-runs are for: the principal of the session's latest request. */
  auth: AuthInfo | undefined;
  /** Whether this process holds the session's GET stream, and so watches its subscriptions. */
  #streaming = false;
  /** URIs being subscribed here now: a sync meanwhile must not end them. */
  readonly #subscribing = new Set<string>();
  #syncing: Promise<void> = Promise.resolve();
  /** URIs unsubscribed since the sync in progress began. */
  readonly #endedDuringSync = new Set<string>();

  constructor(store: SessionStore, id: string, room: LiveRoom, onerror: (error: Error) => void) {
    this.#store = store;
    this.#id = id;
    this.#room = room;
    this.#onerror = onerror;
  }

  get streaming(): boolean {
    return this.#streaming;
  }

  /** Takes the session's subscription requests over from `ClientConnection`'s own handlers. */
  serve(server: Server, connection: ClientConnection): void {
    this.#connection = connection;
    const watches = connection.subscriptions;
    if (!watches) return;
    serveSubscriptions(server, {
      subscribe: (uri, auth) => this.#subscribe(watches, uri, auth),
      end: (uri) => this.#unsubscribe(uri),
    });
  }

  async #subscribe(watches: Watches, uri: string, auth: AuthInfo | undefined): Promise<void> {
    this.#subscribing.add(uri);
    try {
      // Checked and first run here, as an unshared subscription would be: the read's errors,
      // the limits, and the result the client is taken to know from now.
      const seen = digest(await watches.subscribe(uri, auth));
      const { limits, wire } = this.#room;
      if (!(await this.#store.subscribe(this.#id, uri, seen, limits.perConnection))) {
        watches.end(uri);
        throw wire.limitReached(this.#room.refusal("perConnection", subscribingTo(uri)));
      }
      // Watched here too until another process takes the stream (`streamGone`) or this one
      // lets the session go: it counts against this process's caps as an unshared one would,
      // and what it tells is kept in the session's events for a stream resumed here.
    } finally {
      this.#subscribing.delete(uri);
    }
  }

  async #unsubscribe(uri: string): Promise<void> {
    this.unsubscribed(uri);
    await this.#store.unsubscribe(this.#id, uri);
  }

  /** `uri` was unsubscribed (here, or told by another process): it is watched no longer. */
  unsubscribed(uri: string): void {
    this.#connection?.subscriptions?.end(uri);
    // A sync in progress may have read the row before it went: it must not take it up again.
    this.#endedDuringSync.add(uri);
  }

  /**
   * This process took the session's GET stream: it watches the subscriptions from now, and
   * tells the client what changed while the stream was elsewhere or nowhere.
   */
  streamOpened(): Promise<void> {
    this.#streaming = true;
    return this.sync({ takenUp: true });
  }

  /**
   * The stream here ended: the subscriptions stay watched for the client's reconnect (what they
   * tell waits in this copy's events), but nothing is taken as told until a stream opens.
   */
  streamEnded(): void {
    this.#streaming = false;
  }

  /** The stream went elsewhere or for good: the subscriptions are watched no longer here. */
  streamGone(): void {
    this.#streaming = false;
    this.#connection?.endSubscriptions();
  }

  /**
   * Watches what the session's rows hold, when this process holds its stream: ends what they no
   * longer hold, and takes up what they newly hold, notifying each whose result is not the one
   * its client last heard of; `takenUp` (the stream just came here), also each it watched already.
   * One sync at a time.
   */
  sync(options: { takenUp?: boolean } = {}): Promise<void> {
    this.#syncing = this.#syncing.then(
      () => this.#sync(options),
      () => this.#sync(options),
    );
    return this.#syncing;
  }

  /**
   * Records what the client was just told of `uri` (fire and forget: a miss costs one more
   * update). Only through the stream: what a copy without it tells reaches no client (it waits
   * in this copy's events for a stream resumed here), and recorded it would keep the process
   * that takes the stream up from telling the client.
   */
  notified(uri: string): void {
    if (!this.#streaming) return;
    const seen = digest(this.#connection?.subscriptions?.lastResultOf(uri, uri));
    this.#store.saw(this.#id, uri, seen).catch(this.#onerror);
  }

  async #sync({ takenUp = false }: { takenUp?: boolean }): Promise<void> {
    const connection = this.#connection;
    const watches = connection?.subscriptions;
    if (!this.#streaming || !connection || !watches) return;
    this.#endedDuringSync.clear();
    const stored = await this.#store.subscriptions(this.#id);
    if (!this.#streaming) return;
    const wanted = new Map(stored.map(({ uri, seen }) => [uri, seen]));
    const watched = new Set(watches.keys());
    for (const key of watched)
      if (typeof key === "string" && !wanted.has(key) && !this.#subscribing.has(key))
        watches.end(key);
    // Watched here while the stream was not (subscribed here): their runs told no client.
    if (takenUp)
      for (const [uri, seen] of wanted)
        if (watched.has(uri)) {
          const result = watches.lastResultOf(uri, uri);
          if (digest(result) !== seen) connection.notify(uri, notifiedVersion(result));
        }
    await Promise.all(
      [...wanted]
        .filter(([uri]) => !watched.has(uri))
        .map(async ([uri, seen]) => {
          let result: string | undefined;
          try {
            result = await watches.subscribe(uri, this.auth);
          } catch (error) {
            // No longer readable by its principal (the grant changed): nothing to deliver.
            this.#onerror(
              new Error(
                `livecmd: a shared subscription to ${shortened(uri)} could not be taken up: ${(error as Error).message}`,
              ),
            );
            return;
          }
          // Ended meanwhile, or the stream went: a stream opened here again takes it up anew.
          if (this.#endedDuringSync.has(uri) || !this.#streaming) return watches.end(uri);
          if (digest(result) !== seen) connection.notify(uri, notifiedVersion(result));
        }),
    );
  }
}

/** What a result is recorded as: its SHA-256, so that a row stays small whatever it returned. */
function digest(result: string | undefined): string {
  return createHash("sha256")
    .update(result ?? "")
    .digest("base64url");
}
