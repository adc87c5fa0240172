import type { Server } from "@modelcontextprotocol/server";
import type { LiveRoom } from "../../live/liveRoom.ts";
import type { Watches } from "../../live/watches.ts";
import { serveSubscriptions } from "./subscribeResources.ts";
import { updatedParams } from "../../model/resultMeta.ts";

/** What a connection needs of the app it serves (the server's `ServedApp`). */
export interface ConnectedApp {
  readonly room: LiveRoom;
  readonly engine: { onGrantsChanged(listener: () => void): () => void };
  readonly catalog: { readonly hasReadableCommands: boolean };
}

/**
 * One client connection and the `Server` instance pinned to it (a stdio connection, or a legacy
 * HTTP session). It pushes what concerns this client: `list_changed` when the grant changes, and
 * `resources/updated` for the URIs it subscribed to with `resources/subscribe` (2025 era).
 *
 * On 2026-07-28 the SDK's stdio entry rewrites these notifications onto the listen streams that
 * asked for them (and drops them if none did); on the legacy era they go out unsolicited, as the
 * `listChanged` capability promises. `resources/subscribe` does not exist on 2026-07-28 (the SDK
 * answers -32601 before any handler); listens are tracked on the wire instead (`server/listens/`).
 */
export class ClientConnection {
  readonly #server: Server;
  readonly #served: ConnectedApp;
  readonly #onError: (error: Error) => void;
  /** Its `resources/subscribe` subscriptions, by URI as the client sent it. */
  readonly subscriptions: Watches | undefined;
  readonly #notified: ((uri: string) => void) | undefined;
  readonly #stopWatchingGrants: () => void;

  /** `notified(uri)` after each `resources/updated` sent (a shared session records what its client heard). */
  constructor(
    served: ConnectedApp,
    server: Server,
    onError: (error: Error) => void,
    notified?: (uri: string) => void,
  ) {
    this.#served = served;
    this.#notified = notified;
    this.#server = server;
    this.#onError = onError;
    this.#stopWatchingGrants = served.engine.onGrantsChanged(() =>
      this.#announceListChanges().catch(onError),
    );
    if (served.catalog.hasReadableCommands) this.subscriptions = this.#acceptSubscriptions();
    const previous = server.onclose;
    server.onclose = () => {
      this.close();
      previous?.();
    };
  }

  close(): void {
    this.#stopWatchingGrants();
    this.subscriptions?.endAll();
  }

  /**
   * Ends the subscriptions when nothing can deliver them any more (a legacy HTTP session's push
   * stream closed); the connection itself may go on answering requests.
   */
  endSubscriptions(): void {
    this.subscriptions?.endAll();
  }

  #acceptSubscriptions(): Watches {
    const subscriptions = this.#served.room.watches((uri, version) => this.notify(uri, version));
    serveSubscriptions(this.#server, subscriptions);
    return subscriptions;
  }

  /** Tells the client that `uri` changed, and the version it reads as now. */
  notify(uri: string, version: string | undefined): void {
    void this.#server.sendResourceUpdated(updatedParams(uri, version)).catch(this.#onError);
    this.#notified?.(uri);
  }

  async #announceListChanges(): Promise<void> {
    if (!this.#server.transport) return;
    if (this.#served.catalog.hasReadableCommands) await this.#server.sendResourceListChanged();
    await this.#server.sendToolListChanged();
  }
}
