import type { CacheHint } from "@modelcontextprotocol/server";

/**
 * Listings and capabilities depend only on the app's grant, which is the same for every caller:
 * public. The grant can change at runtime; clients that listen get `list_changed`, which evicts
 * their cached pages at once, and a client that does not listen sees a revoked entry for at most
 * a minute, which costs nothing because every read, call and completion checks the grant itself.
 */
export const LISTING: CacheHint = { ttlMs: 60_000, cacheScope: "public" };

/** A live command's result can change with any write: never cached, never shared. */
export const LIVE_READ: CacheHint = { ttlMs: 0, cacheScope: "private" };
