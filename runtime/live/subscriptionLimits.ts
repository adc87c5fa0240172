import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import {
  DEFAULT_SUBSCRIPTION_LIMITS,
  fairShare,
  type SubscriptionLimits,
} from "./limitDefaults.ts";

export type LimitName = keyof SubscriptionLimits;

/**
 * The limits with `given` over the defaults, a share not given being the `fairShare` of its
 * total (given or not); each must be a positive integer.
 */
export function subscriptionLimits(given: Partial<SubscriptionLimits> = {}): SubscriptionLimits {
  const totals = { ...DEFAULT_SUBSCRIPTION_LIMITS, ...given };
  const limits = {
    ...totals,
    perPrincipal: given.perPrincipal ?? fairShare(totals.total),
    listensPerPrincipal: given.listensPerPrincipal ?? fairShare(totals.listensTotal),
    sessionsPerPrincipal: given.sessionsPerPrincipal ?? fairShare(totals.sessionsTotal),
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`livecmd: limits.${name} must be a positive integer, got ${value}`);
  }
  return limits;
}

/**
 * The URIs watched, counted by holder (whom they count against: a principal, or a TCP
 * connection without auth; undefined for the totals alone) and in all.
 */
export class SubscriptionLedger {
  readonly limits: SubscriptionLimits;
  readonly #byHolder = new Map<string, number>();
  #total = 0;

  constructor(limits: SubscriptionLimits) {
    this.limits = limits;
  }

  /** How many more URIs `holder` may watch now, and the limit that bounds it. */
  room(holder: string | undefined): { room: number; limit: LimitName } {
    const total = this.limits.total - this.#total;
    if (holder === undefined) return { room: total, limit: "total" };
    const own = this.limits.perPrincipal - (this.#byHolder.get(holder) ?? 0);
    return own < total ? { room: own, limit: "perPrincipal" } : { room: total, limit: "total" };
  }

  take(holder: string | undefined, count: number): void {
    this.#total += count;
    if (holder !== undefined) this.#byHolder.set(holder, (this.#byHolder.get(holder) ?? 0) + count);
  }

  give(holder: string | undefined, count: number): void {
    this.#total -= count;
    if (holder === undefined) return;
    const left = (this.#byHolder.get(holder) ?? 0) - count;
    if (left > 0) this.#byHolder.set(holder, left);
    else this.#byHolder.delete(holder);
  }
}

/** -32602 for a subscription over a limit: `data.limit` is its value, `data.scope` which limit it is. */
export function limitReached(
  limits: SubscriptionLimits,
  limit: LimitName,
  what: string,
): ProtocolError {
  return overLimit(
    ProtocolErrorCode.InvalidParams,
    limits,
    limit,
    (bound) => `Subscription limit reached: ${bound}; end a subscription before ${what}`,
  );
}

/**
 * A refusal for going over `limit`, worded by `message` around "<what the limit bounds> is
 * <value>"; every limit error carries `data: { limit, scope }` alike.
 */
export function overLimit(
  code: number,
  limits: SubscriptionLimits,
  limit: LimitName,
  message: (bound: string) => string,
): ProtocolError {
  const value = limits[limit];
  return new ProtocolError(code, message(`${LIMIT_WORDS[limit]} is ${value}`), {
    limit: value,
    scope: limit,
  });
}

const LIMIT_WORDS: Record<LimitName, string> = {
  perConnection: "the number of URIs one connection may watch",
  perPrincipal: "the number of URIs one principal (or connection without auth) may watch",
  total: "the number of URIs this server watches in all",
  listensPerPrincipal:
    "the number of listens one principal (or connection without auth) may hold open",
  listensTotal: "the number of listens this server holds open",
  sessionsPerPrincipal:
    "the number of 2025-era sessions one principal (or connection without auth) may hold open",
  sessionsTotal: "the number of 2025-era sessions this server holds open",
};
