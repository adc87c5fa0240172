import type { McpRequestContext, Server, Transport } from "@modelcontextprotocol/server";
import {
  serveStdio as serveStdioEntry,
  StdioServerTransport,
  type StdioServerHandle,
} from "@modelcontextprotocol/server/stdio";
import type { App } from "../../model/app.ts";
import { buildServer } from "../methods/buildServer.ts";
import { ClientConnection } from "../methods/clientConnection.ts";
import { updatedParams } from "../../model/resultMeta.ts";
import { oncePerTurn } from "../../live/oncePerTurn.ts";
import { ServedApp, type LiveStatus, type ServeOptions } from "../served/servedApp.ts";
import { StdioListenTap } from "../listens/stdioListenTap.ts";

export interface ServeStdioOptions extends ServeOptions {
  /** Another transport than the process's stdin/stdout (a socket, or an in-memory pair in tests). */
  transport?: Transport;
}

export interface StdioServing extends StdioServerHandle {
  /** The live subscriptions of this connection. */
  readonly live: LiveStatus;
}

/**
 * Serves the app over stdio, on both eras: the SDK's entry picks the era from the opening
 * message and pins one instance to the connection. Live subscriptions: `resources/subscribe` on
 * the 2025 era (`ClientConnection`), `subscriptions/listen` on 2026-07-28 (`StdioListenTap`), whose
 * updates go out through the pinned instance so the entry stamps them onto the listens.
 */
export function serveStdio(app: App, options: ServeStdioOptions = {}): StdioServing {
  const served = new ServedApp(app, options);
  served.sayCapture();
  const { onerror } = served;
  // The instance the entry built last is the one it pins (a discarded discover probe is followed
  // by the legacy instance that replaces it).
  let pinned: { server: Server; era: McpRequestContext["era"] } | undefined;
  // The entry stamps one update onto every listen holding its URI: the connection's listens
  // publish each URI once. One connection is one principal: each listen reads the same version.
  const listens = served.room.watches(
    oncePerTurn(
      (uri, version) =>
        void pinned?.server.sendResourceUpdated(updatedParams(uri, version)).catch(onerror),
    ),
  );
  const transport = new StdioListenTap(
    options.transport ?? new StdioServerTransport(),
    listens,
    () => pinned?.era !== "legacy",
    served.room.wire,
  );
  const handle = serveStdioEntry(
    (context) => {
      const server = buildServer(served);
      new ClientConnection(served, server, onerror);
      pinned = { server, era: context.era };
      return server;
    },
    { transport, onerror: served.refusals.or(onerror) },
  );
  return {
    live: served.room.registry,
    async close() {
      await handle.close();
      listens.endAll();
      served.close();
    },
  };
}
