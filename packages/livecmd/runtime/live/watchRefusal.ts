import type { JSONRPCMessage, ProtocolError, RequestId } from "@modelcontextprotocol/server";
import type { LimitName } from "./subscriptionLimits.ts";

/**
 * A watch the limits leave no room for: which limit, its value, and what the client was doing
 * (its error asks the client to end a subscription before that). The live room words no error:
 * the server maps this to the wire (`RefusalWire`).
 */
export interface WatchRefusal {
  readonly limit: LimitName;
  readonly value: number;
  readonly what: string;
}

/**
 * How the server answers on the wire for the live room and its taps: the server's error module
 * (`runtime/server/errors/limitErrors.ts` `LIVE_REFUSALS`), handed in so that live/ imports
 * nothing of server/.
 */
export interface RefusalWire {
  /** The limit error of `refusal`. */
  limitReached(refusal: WatchRefusal): ProtocolError;
  /** The JSON-RPC error answer to request `id`. */
  errorMessage(error: ProtocolError, id: RequestId): JSONRPCMessage;
  /** The JSON-RPC error as an HTTP answer (of status `status`), to request `id`. */
  errorResponse(status: number, error: ProtocolError, id?: RequestId): Response;
  /** A `Last-Event-ID` that resumes no listen here. */
  listenNotResumable(): ProtocolError;
}
