import type {
  AuthInfo,
  JSONRPCRequest,
  McpHandlerRequestOptions,
  ProtocolError,
} from "@modelcontextprotocol/server";
import { isEventStream, whenStreamEnds } from "../eventStream.ts";
import { ListenRegistrations } from "../listens.ts";
import { listenId, narrowedTo, requestedUris } from "./listenRequest.ts";
import type { HeldByToken } from "../auth/heldByToken.ts";
import type { ServedApp } from "../servedApp.ts";
import { OpenCount } from "../openCount.ts";
import { holderOf, limitReached } from "../subscriptionLimits.ts";

type Fetch = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

/**
 * The 2026-07-28 listens of the HTTP endpoint. `createMcpHandler` answers
 * `subscriptions/listen` itself, acknowledges the filter verbatim and keeps the open filters to
 * itself; so each listen's `resourceSubscriptions` is narrowed to the URIs livecmd will watch
 * before the handler sees it (handed over as the parsed body), they are registered, and they
 * are released when the listen's event stream ends: the client closed it, or the server ended
 * it. A stateless 2026-07-28 HTTP client has no connection beyond its listen stream, so the
 * per-connection limit applies to each listen; a principal's open listens are counted too, so
 * that none can take every stream the handler keeps.
 */
export class HttpListens {
  readonly #served: ServedApp;
  readonly #registrations: ListenRegistrations<object>;
  readonly #streams: OpenCount;
  readonly #held: HeldByToken;

  /**
   * `publish(uri)` reaches every open listen whose filter holds exactly `uri`; `held` ends a
   * listen whose token is revoked or expires.
   */
  constructor(served: ServedApp, publish: (uri: string) => void, held: HeldByToken) {
    this.#served = served;
    this.#held = held;
    this.#registrations = new ListenRegistrations(served, publish);
    this.#streams = new OpenCount(served.ledger.limits, "listensPerPrincipal", "listensTotal");
  }

  /**
   * Serves a 2026-07-28 request through `next`, with `auth` (the verified principal, if any)
   * handed over; `read`: the body, when the caller has read and parsed it already.
   */
  async fetch(
    request: Request,
    next: Fetch,
    read?: { parsed: unknown },
    auth?: AuthInfo,
  ): Promise<Response> {
    const options = (parsedBody: unknown) => ({
      ...(parsedBody !== undefined && { parsedBody }),
      ...(auth && { authInfo: auth }),
    });
    // 2026-07-28 requests must name their method in a header, checked against the body by the SDK.
    if (request.headers.get("mcp-method") !== "subscriptions/listen")
      return next(request, options(read?.parsed));
    const message: unknown = read
      ? read.parsed
      : await request
          .clone()
          .json()
          .catch(() => undefined);
    const id = listenId(message);
    if (id === undefined) return next(request, options(read?.parsed));
    const holder = holderOf(auth);
    const full = this.#streams.full(holder);
    if (full)
      return refusal(id, limitReached(this.#served.ledger.limits, full, "opening another listen"));
    const requested = requestedUris(message) ?? [];
    const honored = this.#registrations.honor(
      requested,
      this.#served.ledger.limits.perConnection,
      auth,
    );
    if (honored.uris.length === 0 && honored.limited) {
      return refusal(
        id,
        limitReached(this.#served.ledger.limits, honored.limited, "listening to more URIs"),
      );
    }
    const listen = {};
    await this.#registrations.open(listen, honored.uris, auth);
    this.#streams.open(holder);
    let released = false;
    const revoked = new AbortController();
    const unhold = this.#held.hold(auth, () => revoked.abort());
    const release = () => {
      if (released) return;
      released = true;
      unhold();
      this.#registrations.close(listen);
      this.#streams.close(holder);
    };
    try {
      const parsedBody = requestedUris(message)
        ? narrowedTo(message as JSONRPCRequest, honored.uris)
        : message;
      const response = await next(request, options(parsedBody));
      if (isEventStream(response)) return whenStreamEnds(response, release, revoked.signal);
      release();
      return response;
    } catch (error) {
      release();
      throw error;
    }
  }

  closeAll(): void {
    this.#registrations.closeAll();
  }
}

/** A JSON-RPC error answer to the listen `id`, as the handler would send one. */
function refusal(id: string | number, error: ProtocolError): Response {
  return Response.json({
    jsonrpc: "2.0",
    id,
    error: { code: error.code, message: error.message, data: error.data },
  });
}
