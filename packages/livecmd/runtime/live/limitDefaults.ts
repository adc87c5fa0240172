// No imports: the CLI reads these defaults for its help on every run.

/**
 * How many URIs may be watched at once, so that no client can make every write re-run an
 * unbounded number of commands, and no principal can take every slot from the others.
 */
export interface SubscriptionLimits {
  /** URIs one connection watches: a stdio connection, a 2025 session, one 2026-07-28 HTTP listen. The RFC's 64. */
  perConnection: number;
  /**
   * URIs one holder watches across its connections and listens: an authenticated principal, or
   * on an endpoint without auth one TCP connection (see `holderOf`, `server/served/requestContext.ts`).
   */
  perPrincipal: number;
  /** URIs the whole server watches, both eras together. */
  total: number;
  /** 2026-07-28 listen streams one holder (principal, or connection without auth) holds open over HTTP. */
  listensPerPrincipal: number;
  /** 2026-07-28 listen streams the HTTP endpoint holds open in all. */
  listensTotal: number;
  /** 2025-era HTTP sessions one holder (principal, or connection without auth) opened and holds open. */
  sessionsPerPrincipal: number;
  /** 2025-era HTTP sessions the endpoint holds open in all (each has its own server instance). */
  sessionsTotal: number;
}

/**
 * How many holders (principals, and unauthenticated connections) can each take a whole share of
 * a total before it is reached: a share not given is the total's 1/64th, so that no 16 tokens
 * (a share of 1/16th) can take every slot.
 */
export const FAIR_SHARES = 64;

/** A holder's share of `total` when none is given: its `FAIR_SHARES`th, at least 1. */
export function fairShare(total: number): number {
  return Math.max(1, Math.floor(total / FAIR_SHARES));
}

const TOTALS = { total: 65_536, listensTotal: 4096, sessionsTotal: 1024 };

export const DEFAULT_SUBSCRIPTION_LIMITS: SubscriptionLimits = {
  perConnection: 64,
  ...TOTALS,
  perPrincipal: fairShare(TOTALS.total),
  listensPerPrincipal: fairShare(TOTALS.listensTotal),
  sessionsPerPrincipal: fairShare(TOTALS.sessionsTotal),
};
