// No imports: the CLI reads these defaults for its help on every run.

/**
 * How many URIs may be watched at once, so that no client can make every write re-run an
 * unbounded number of commands, and no principal can take every slot from the others.
 */
export interface SubscriptionLimits {
  /** URIs one connection watches: a stdio connection, a 2025 session, one 2026-07-28 HTTP listen. The RFC's 64. */
  perConnection: number;
  /** URIs one authenticated principal watches across its connections and listens. */
  perPrincipal: number;
  /** URIs the whole server watches, both eras together. */
  total: number;
  /** 2026-07-28 listen streams one authenticated principal holds open over HTTP. */
  listensPerPrincipal: number;
  /** 2026-07-28 listen streams the HTTP endpoint holds open in all. */
  listensTotal: number;
  /** 2025-era HTTP sessions one authenticated principal holds open. */
  sessionsPerPrincipal: number;
  /** 2025-era HTTP sessions the endpoint holds open in all (each has its own server instance). */
  sessionsTotal: number;
}

export const DEFAULT_SUBSCRIPTION_LIMITS: SubscriptionLimits = {
  perConnection: 64,
  perPrincipal: 4096,
  total: 65_536,
  listensPerPrincipal: 256,
  listensTotal: 4096,
  sessionsPerPrincipal: 64,
  sessionsTotal: 1024,
};
