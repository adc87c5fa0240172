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
