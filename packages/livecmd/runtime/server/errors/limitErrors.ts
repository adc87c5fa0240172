import { type ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { SubscriptionLimits } from "../../live/limitDefaults.ts";
import type { LimitName } from "../../live/subscriptionLimits.ts";
import type { RefusalWire, WatchRefusal } from "../../live/watchRefusal.ts";
import { refusal, errorResponse, errorMessage } from "./protocolErrors.ts";
import { listenNotResumable, SDK_TRANSPORT_REFUSAL } from "./frontDoorErrors.ts";

// The errors of the subscription and session limits: every one carries `data: { limit, scope }`.

/**
 * The refusal of an `initialize` over a session limit: a session ends with a DELETE of its
 * `Mcp-Session-Id`, or when it has been idle for `idleMs`.
 */
export function sessionLimitReached(
  limits: SubscriptionLimits,
  limit: LimitName,
  idleMs: number,
): ProtocolError {
  return overLimit(
    SDK_TRANSPORT_REFUSAL,
    limit,
    limits[limit],
    (bound) =>
      `Session limit reached: ${bound}; end a session (DELETE with its Mcp-Session-Id) or reuse one; an idle session is closed after ${Math.round(idleMs / 1000)} s`,
  );
}

/** -32602 for a subscription over a limit: `data.limit` is its value, `data.scope` which limit it is. */
export function limitReached({ limit, value, what }: WatchRefusal): ProtocolError {
  return overLimit(
    ProtocolErrorCode.InvalidParams,
    limit,
    value,
    (bound) => `Subscription limit reached: ${bound}; end a subscription before ${what}`,
  );
}

/**
 * A refusal for going over `limit` (of `value`), worded by `message` around "<what the limit
 * bounds> is <value>"; every limit error carries `data: { limit, scope }` alike.
 */
function overLimit(
  code: number,
  limit: LimitName,
  value: number,
  message: (bound: string) => string,
): ProtocolError {
  return refusal(code, message(`${LIMIT_WORDS[limit]} is ${value}`), {
    limit: value,
    scope: limit,
  });
}

/** The live room's and its taps' answers on the wire (live/ words none itself). */
export const LIVE_REFUSALS: RefusalWire = {
  limitReached,
  errorMessage,
  errorResponse,
  listenNotResumable,
};

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
