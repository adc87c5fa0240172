import type { CacheHint } from "@modelcontextprotocol/server";

import type { AppEngine } from "../../model/appEngine.ts";

/**
 * Listings and capabilities depend on the app's grant, the same for every caller unless
 * `agent.scopes` makes a command need scopes: then each principal has its own listing, which
 * no shared cache may hand to another (private). The grant can change at runtime; clients that
 * listen get `list_changed`, which evicts their cached pages at once, and a client that does not
 * listen sees a revoked entry for at most a minute, which costs nothing because every read,
 * call and completion checks the grant itself.
 */
export function listingHint(engine: AppEngine): CacheHint {
  return { ttlMs: 60_000, cacheScope: engine.hasScopedGrants ? "private" : "public" };
}

/** A live command's result can change with any write: never cached, never shared. */
export const LIVE_READ: CacheHint = { ttlMs: 0, cacheScope: "private" };
