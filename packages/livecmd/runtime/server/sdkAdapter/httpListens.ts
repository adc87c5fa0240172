import type {
  AuthInfo,
  JSONRPCRequest,
  McpHandlerRequestOptions,
} from "@modelcontextprotocol/server";
import type { LiveRoom } from "../../live/liveRoom.ts";
import { isEventStream, whenStreamEnds } from "../eventStream.ts";
import { errorResponse } from "../protocolErrors.ts";
import { listenId, narrowedTo, requestedUris } from "./listenRequest.ts";
import type { HeldByToken } from "../auth/heldByToken.ts";

type Fetch = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

/**
 * The 2026-07-28 listens of the HTTP endpoint. `createMcpHandler` answers
 * `subscriptions/listen` itself, acknowledges the filter verbatim and keeps the open filters to
 * itself; so each listen is opened in the live room (`LiveRoom.openListen`, which admits its
 * URIs and counts its stream) and its `resourceSubscriptions` narrowed to the URIs watched
 * before the handler sees it (handed over as the parsed body), and it is closed when its event
 * stream ends: the client closed it, or the server ended it.
 */
export class HttpListens {
  readonly #room: LiveRoom;
  readonly #publish: (uri: string) => void;
  readonly #held: HeldByToken;
  /** What ends each open listen. */
  readonly #open = new Set<() => void>();

  /**
   * `publish(uri)` reaches every open listen whose filter holds exactly `uri`; `held` ends a
   * listen whose token is revoked or expires.
   */
  constructor(room: LiveRoom, publish: (uri: string) => void, held: HeldByToken) {
    this.#room = room;
    this.#publish = publish;
    this.#held = held;
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
    const listen = await this.#room.openListen(requestedUris(message) ?? [], auth, this.#publish);
    // Refused as the handler would refuse it: a JSON-RPC error answer to the listen, 200.
    if ("refused" in listen) return errorResponse(200, listen.refused, id);
    const revoked = new AbortController();
    const unhold = this.#held.hold(auth, () => revoked.abort());
    const release = () => {
      this.#open.delete(release);
      unhold();
      listen.close();
    };
    this.#open.add(release);
    try {
      const parsedBody = requestedUris(message)
        ? narrowedTo(message as JSONRPCRequest, listen.watched)
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
    for (const release of [...this.#open]) release();
  }
}
