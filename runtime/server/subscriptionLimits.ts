import { ProtocolError, ProtocolErrorCode, type AuthInfo } from "@modelcontextprotocol/server";
import { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from "./limitDefaults.ts";
import { SDK_TRANSPORT_REFUSAL } from "./protocolErrors.ts";

export { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from "./limitDefaults.ts";

export type LimitName = keyof SubscriptionLimits;

/** The limits with `given` over the defaults; each must be a positive integer. */
export function subscriptionLimits(given: Partial<SubscriptionLimits> = {}): SubscriptionLimits {
  const limits = { ...DEFAULT_SUBSCRIPTION_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`livecmd: limits.${name} must be a positive integer, got ${value}`);
  }
  return limits;
}

/**
 * The URIs watched, counted by principal and in all. Unauthenticated clients have no principal
 * to be counted by: the per-connection and total limits hold them.
 */
export class SubscriptionLedger {
  readonly limits: SubscriptionLimits;
  readonly #byPrincipal = new Map<string, number>();
  #total = 0;

  constructor(limits: SubscriptionLimits) {
    this.limits = limits;
  }

  /** How many more URIs `auth` may watch now, and the limit that bounds it. */
  room(auth: AuthInfo | undefined): { room: number; limit: LimitName } {
    const total = this.limits.total - this.#total;
    if (auth === undefined) return { room: total, limit: "total" };
    const own = this.limits.perPrincipal - (this.#byPrincipal.get(auth.clientId) ?? 0);
    return own < total ? { room: own, limit: "perPrincipal" } : { room: total, limit: "total" };
  }

  take(auth: AuthInfo | undefined, count: number): void {
    this.#total += count;
    if (auth !== undefined)
      this.#byPrincipal.set(auth.clientId, (this.#byPrincipal.get(auth.clientId) ?? 0) + count);
  }

  give(auth: AuthInfo | undefined, count: number): void {
    this.#total -= count;
    if (auth === undefined) return;
    const left = (this.#byPrincipal.get(auth.clientId) ?? 0) - count;
    if (left > 0) this.#byPrincipal.set(auth.clientId, left);
    else this.#byPrincipal.delete(auth.clientId);
  }
}

/** -32602 for a subscription over a limit: `data.limit` is its value, `data.scope` which limit it is. */
export function limitReached(
  limits: SubscriptionLimits,
  limit: LimitName,
  what: string,
): ProtocolError {
  const value = limits[limit];
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Subscription limit reached: ${LIMIT_WORDS[limit]} is ${value}; end a subscription before ${what}`,
    { limit: value, scope: limit },
  );
}

const LIMIT_WORDS: Record<LimitName, string> = {
  perConnection: "the number of URIs one connection may watch",
  perPrincipal: "the number of URIs one principal may watch",
  total: "the number of URIs this server watches in all",
  listensPerPrincipal: "the number of listens one principal may hold open",
  listensTotal: "the number of listens this server holds open",
  sessionsPerPrincipal: "the number of 2025-era sessions one principal may hold open",
  sessionsTotal: "the number of 2025-era sessions this server holds open",
};

/**
 * The refusal of an `initialize` over a session limit: a session ends with a DELETE of its
 * `Mcp-Session-Id`, or when it has been idle for `idleMs`.
 */
export function sessionLimitReached(
  limits: SubscriptionLimits,
  limit: LimitName,
  idleMs: number,
): ProtocolError {
  const value = limits[limit];
  return new ProtocolError(
    SDK_TRANSPORT_REFUSAL,
    `Session limit reached: ${LIMIT_WORDS[limit]} is ${value}; end a session (DELETE with its Mcp-Session-Id) or reuse one; an idle session is closed after ${Math.round(idleMs / 1000)} s`,
    { limit: value, scope: limit },
  );
}
