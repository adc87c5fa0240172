import type { JSONRPCRequest, McpHandlerRequestOptions } from "@modelcontextprotocol/server";
import { isEventStream, whenStreamEnds } from "../eventStream.ts";
import { ListenRegistrations } from "../listens.ts";
import { narrowedTo, requestedUris } from "./listenRequest.ts";
import { MAX_SUBSCRIPTIONS_PER_CONNECTION, type ServedApp } from "../servedApp.ts";

type Fetch = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

/**
 * The 2026-07-28 listens of the HTTP endpoint. `createMcpHandler` answers
 * `subscriptions/listen` itself, acknowledges the filter verbatim and keeps the open filters to
 * itself; so each listen's `resourceSubscriptions` is narrowed to the URIs livecmd will watch
 * before the handler sees it (handed over as the parsed body), they are registered, and they
 * are released when the listen's event stream ends: the client closed it, or the server ended
 * it. A stateless 2026-07-28 HTTP client has no connection beyond its listen stream, so the
 * limit of 64 URIs applies to each listen.
 */
export class HttpListens {
  readonly #registrations: ListenRegistrations<object>;

  /** `publish(uri)` reaches every open listen whose filter holds exactly `uri`. */
  constructor(served: ServedApp, publish: (uri: string) => void) {
    this.#registrations = new ListenRegistrations(served, publish);
  }

  /** `read`: the body, when the caller has read and parsed it already (the handler then will not). */
  async fetch(request: Request, next: Fetch, read?: { parsed: unknown }): Promise<Response> {
    // 2026-07-28 requests must name their method in a header, checked against the body by the SDK.
    if (request.headers.get("mcp-method") !== "subscriptions/listen")
      return read ? next(request, { parsedBody: read.parsed }) : next(request);
    const message: unknown = read
      ? read.parsed
      : await request
          .clone()
          .json()
          .catch(() => undefined);
    const requested = requestedUris(message);
    if (!requested) return read ? next(request, { parsedBody: read.parsed }) : next(request);
    const listen = {};
    const honored = this.#registrations.honor(requested, MAX_SUBSCRIPTIONS_PER_CONNECTION);
    await this.#registrations.open(listen, honored);
    const release = () => this.#registrations.close(listen);
    try {
      const response = await next(request, {
        parsedBody: narrowedTo(message as JSONRPCRequest, honored),
      });
      if (isEventStream(response)) return whenStreamEnds(response, release);
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
