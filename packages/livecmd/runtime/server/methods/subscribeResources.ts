import type { AuthInfo, Server } from "@modelcontextprotocol/server";

/**
 * What `resources/subscribe` and `resources/unsubscribe` reach of a 2025-era connection: its
 * own watches (the live room's `Watches`), or a session's that replicas share
 * (`SharedSubscriptions`).
 */
export interface ResourceSubscriptions {
  /** Watches `uri` for the principal of the request; rejects as a read of it would. */
  subscribe(uri: string, auth: AuthInfo | undefined): Promise<unknown>;
  end(uri: string): unknown;
}

/**
 * Serves the 2025 era's `resources/subscribe` and `resources/unsubscribe` on `server` from
 * `subscriptions` (registered again, the later ones answer). The 2026-07-28 era has no such
 * methods: the SDK answers -32601 before any handler, and its listens are tapped off the wire
 * (`runtime/server/listens/`).
 */
export function serveSubscriptions(server: Server, subscriptions: ResourceSubscriptions): void {
  server.setRequestHandler("resources/subscribe", async (request, ctx) => {
    await subscriptions.subscribe(request.params.uri, ctx.http?.authInfo);
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", async (request) => {
    await subscriptions.end(request.params.uri);
    return {};
  });
}
