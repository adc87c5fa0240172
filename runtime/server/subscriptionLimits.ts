import { ProtocolError, ProtocolErrorCode, type AuthInfo } from "@modelcontextprotocol/server";
import {
  DEFAULT_SUBSCRIPTION_LIMITS,
  fairShare,
  type SubscriptionLimits,
} from "./limitDefaults.ts";
import { currentRequest } from "./requestContext.ts";
import { SDK_TRANSPORT_REFUSAL } from "./protocolErrors.ts";

export { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from "./limitDefaults.ts";

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
 * Whom a subscription, listen or session counts against for the per-principal shares: `auth`'s
 * principal, or on an endpoint without auth the TCP connection of the request being served.
 * Unauthenticated loopback clients have nothing else to tell them apart by: every local process
 * comes from 127.0.0.1 (a share per address would be a second total), and a process is not
 * named over TCP. A connection is what a runaway client loops on (HTTP keep-alive), so its
 * share stops it short of the totals; a process that opens many connections is many holders,
 * as it is entitled to be where any local process may run every granted command. A bound that
 * holds against a hostile local process is a token per client (`--tokens`). Undefined (the
 * totals alone) outside an HTTP request: a stdio connection is one client, its own limit.
 */
export function holderOf(auth: AuthInfo | undefined): string | undefined {
  if (auth) return `principal ${auth.clientId}`;
  const connection = currentRequest()?.connection;
  return connection === undefined ? undefined : `connection ${connection}`;
}

/** The URIs watched, counted by holder (`holderOf`) and in all. */
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
  const value = limits[limit];
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Subscription limit reached: ${LIMIT_WORDS[limit]} is ${value}; end a subscription before ${what}`,
    { limit: value, scope: limit },
  );
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
