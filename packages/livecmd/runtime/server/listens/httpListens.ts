import type {
  AuthInfo,
  JSONRPCRequest,
  McpHandlerRequestOptions,
} from "@modelcontextprotocol/server";
import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import type { LiveRoom } from "../../live/liveRoom.ts";
import type { Notify } from "../../live/watchGroups.ts";
import { isEventStream, primed, whenStreamEnds } from "../streams/eventStream.ts";
import { principalOf } from "../../model/principal.ts";
import { listenId, narrowedTo, requestedUris } from "./listenRequest.ts";
import { resumableStream, type ListenResumes } from "./listenResume.ts";
import type { TokenHolds } from "../../live/tokenHolds.ts";

type Fetch = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

/**
 * The 2026-07-28 listens of the HTTP endpoint. `createMcpHandler` answers
 * `subscriptions/listen` itself, acknowledges the filter verbatim and keeps the open filters to
 * itself; so each listen is opened in the live room (`LiveRoom.openListen`, which admits its
 * URIs and counts its stream) and its `resourceSubscriptions` narrowed to the URIs watched
 * before the handler sees it (handed over as the parsed body), and it is closed when its event
 * stream ends: the client closed it, or the server ended it. Every event stream it answers is
 * primed (SEP-1699); a listen's carries ids it can be resumed from on any replica sharing the
 * key (`listenResume.ts`), and a `GET` with such a `Last-Event-ID` is served as that listen again.
 */
export class HttpListens {
  readonly #room: LiveRoom;
  readonly #publish: Notify;
  readonly #held: TokenHolds;
  readonly #resumes: ListenResumes;
  /** What ends each open listen. */
  readonly #open = new Set<() => void>();

  /**
   * `publish(uri)` reaches every open listen whose filter holds exactly `uri` (each stream stamps
   * its own principal's version: `resumableStream`); `held` ends a listen whose token is revoked or
   * expires; `resumes` signs and reads the listens' event ids.
   */
  constructor(room: LiveRoom, publish: Notify, held: TokenHolds, resumes: ListenResumes) {
    this.#room = room;
    this.#publish = publish;
    this.#held = held;
    this.#resumes = resumes;
  }

  /**
   * Serves a 2026-07-28 request through `next`, with `auth` (the verified principal, if any)
   * handed over; `read`: the body, when the caller has read and parsed it already. A `GET` is
   * a listen's resumption (`routeByEra` sends no other here).
   */
  async fetch(
    request: Request,
    next: Fetch,
    read?: { parsed: unknown },
    auth?: AuthInfo,
  ): Promise<Response> {
    if (request.method === "GET") return this.#resume(request, next, auth);
    // 2026-07-28 requests must name their method in a header, checked against the body by the SDK.
    if (request.headers.get("mcp-method") !== "subscriptions/listen")
      return primedIfStream(await next(request, options(read?.parsed, auth)));
    const message: unknown = read
      ? read.parsed
      : await request
          .clone()
          .json()
          .catch(() => undefined);
    if (listenId(message) === undefined)
      return primedIfStream(await next(request, options(read?.parsed, auth)));
    return this.#serve(request, message as JSONRPCRequest, next, auth);
  }

  closeAll(): void {
    for (const release of [...this.#open]) release();
  }

  /**
   * The listen a `Last-Event-ID` carries, served again as the request it was, and told at once
   * of each URI whose result is not the one its client was last told of. An id this endpoint
   * cannot resume (another key, another principal, altered) is 405, on which the SDK's client
   * ends the listen (`closed` is `"remote"`) and its caller opens it again.
   */
  async #resume(request: Request, next: Fetch, auth: AuthInfo | undefined): Promise<Response> {
    const resumed = this.#resumes.resumed(request.headers.get("last-event-id"), principalOf(auth));
    if (!resumed) {
      const { wire } = this.#room;
      const refused = wire.errorResponse(405, wire.listenNotResumable());
      refused.headers.set("allow", "POST");
      return refused;
    }
    const headers = new Headers(request.headers);
    headers.delete("last-event-id");
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    headers.set("mcp-method", "subscriptions/listen");
    headers.set("mcp-protocol-version", protocolVersionOf(resumed.message));
    const body = JSON.stringify(resumed.message);
    const post = new Request(request.url, {
      method: "POST",
      headers,
      body,
      signal: request.signal,
    });
    const response = await this.#serve(post, resumed.message, next, auth, resumed.told);
    // A resumption is a GET whose answer the SDK's client reads as an event stream: a refusal
    // goes as the listen's error event, which ends the listen there.
    return isEventStream(response) ? response : asEventStream(response);
  }

  /** Serves listen `message`; `told`: what a resumed listen's client was told of each URI. */
  async #serve(
    request: Request,
    message: JSONRPCRequest,
    next: Fetch,
    auth: AuthInfo | undefined,
    told?: ReadonlyMap<string, string>,
  ): Promise<Response> {
    const uris = requestedUris(message);
    const listen = await this.#room.openListen(uris ?? [], auth, this.#publish);
    if ("refused" in listen) {
      const { wire } = this.#room;
      return wire.errorResponse(200, wire.limitReached(listen.refused), message.id);
    }
    const revoked = new AbortController();
    const unhold = this.#held.hold(auth, () => revoked.abort());
    const release = () => {
      this.#open.delete(release);
      unhold();
      listen.close();
    };
    this.#open.add(release);
    try {
      const parsedBody = uris ? narrowedTo(message, listen.watched) : message;
      const response = await next(request, options(parsedBody, auth));
      if (!isEventStream(response)) {
        release();
        return response;
      }
      const ids = this.#resumes.ids(parsedBody, principalOf(auth));
      const changed: string[] = [];
      for (const uri of listen.watched) {
        const result = listen.lastResultOf(uri);
        ids.told(uri, result);
        if (told && told.get(uri) !== this.#resumes.digest(result)) changed.push(uri);
      }
      const resumable = resumableStream(
        response,
        { id: message.id, ids, resultOf: listen.lastResultOf, versionOf: listen.versionOf },
        changed,
      );
      return whenStreamEnds(resumable, release, revoked.signal);
    } catch (error) {
      release();
      throw error;
    }
  }
}

function options(parsedBody: unknown, auth: AuthInfo | undefined): McpHandlerRequestOptions {
  return {
    ...(parsedBody !== undefined && { parsedBody }),
    ...(auth && { authInfo: auth }),
  };
}

function primedIfStream(response: Response): Response {
  return isEventStream(response) ? primed(response) : response;
}

function protocolVersionOf(message: JSONRPCRequest): string {
  return (message.params?._meta as Record<string, string>)[PROTOCOL_VERSION_META_KEY]!;
}

/** A JSON answer as the one event of an event stream (each of its lines a `data:` line). */
async function asEventStream(response: Response): Promise<Response> {
  const data = (await response.text()).trimEnd().replaceAll("\n", "\ndata: ");
  return new Response(`event: message\ndata: ${data}\n\n`, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
