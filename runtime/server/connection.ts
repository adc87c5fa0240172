import type { Server } from "@modelcontextprotocol/server";
import type { ServedApp } from "./servedApp.ts";

/**
 * One client connection and the `Server` instance pinned to it (a stdio connection, or a legacy
 * HTTP session). It pushes what concerns this client: today `list_changed` when the grant
 * changes; per-connection subscriptions belong here too.
 *
 * On 2026-07-28 the SDK's stdio entry rewrites these notifications onto the listen streams that
 * asked for them (and drops them if none did); on the legacy era they go out unsolicited, as the
 * `listChanged` capability promises.
 */
export class Connection {
  readonly #server: Server;
  readonly #served: ServedApp;
  readonly #stopWatchingGrants: () => void;

  constructor(served: ServedApp, server: Server, onError: (error: Error) => void) {
    this.#served = served;
    this.#server = server;
    this.#stopWatchingGrants = served.app.onGrantsChanged(() => this.#announceListChanges().catch(onError));
    const previous = server.onclose;
    server.onclose = () => {
      this.close();
      previous?.();
    };
  }

  close(): void {
    this.#stopWatchingGrants();
  }

  async #announceListChanges(): Promise<void> {
    if (!this.#server.transport) return;
    if (this.#served.catalog.hasReadableCommands) await this.#server.sendResourceListChanged();
    await this.#server.sendToolListChanged();
  }
}
