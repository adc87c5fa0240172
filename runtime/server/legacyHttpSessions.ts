import { randomUUID } from "node:crypto";
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import type { HeldByToken } from "./auth/heldByToken.ts";
import { buildServer } from "./buildServer.ts";
import { Connection } from "./connection.ts";
import { isEventStream, primed, SSE_RETRY_MS, whenStreamEnds } from "./eventStream.ts";
import { OpenCount } from "../live/openCount.ts";
import { SessionEventStore } from "./sessionEventStore.ts";
import { errorResponse, sessionLimitReached } from "./protocolErrors.ts";
import { holderOf } from "./requestContext.ts";
import { invalidParams } from "./sdkAdapter/requestParams.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * The 2025-era leg of the HTTP endpoint, with sessions. The SDK's default legacy fallback is
 * stateless and can push nothing, so a 2025 client would never hear `list_changed`; here each
 * `initialize` opens a session with its own instance and connection, and the client's GET
 * stream carries what the server pushes.
 *
 * Events carry ids, and each session keeps the last ones (`SessionEventStore`): a client whose
 * GET stream dropped reconnects (at once: the dropped stream is let go as soon as the socket
 * closes) with `Last-Event-ID` and is sent what it missed. A session's `resources/subscribe`
 * subscriptions outlive a dropped GET stream by `RECONNECT_GRACE_MS` (their updates are kept
 * for the reconnect) and then end: the SDK client's `close()` aborts its streams without
 * ending the session, and nothing else would deliver them.
 *
 * Clients rarely end their sessions (a DELETE), so a session with no request in progress and no
 * open stream for `idleMs` is closed; its client then gets 404 and initializes again, as the
 * protocol provides for. A session whose token is revoked or expires is closed at once.
 * Sessions are capped per principal and in all (`sessionsPerPrincipal`, `sessionsTotal`):
 * each has its own server instance.
 */
export class LegacyHttpSessions {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #idleMs: number;
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;
  readonly #held: HeldByToken;
  readonly #count: OpenCount;

  constructor(
    served: ServedApp,
    onerror: (error: Error) => void,
    idleMs: number,
    held: HeldByToken,
  ) {
    this.#served = served;
    this.#held = held;
    this.#count = new OpenCount(served.room.limits, "sessionsPerPrincipal", "sessionsTotal");
    this.#onerror = onerror;
    this.#idleMs = idleMs;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(idleMs, 60_000)).unref();
  }

  /**
   * A 2025-era request, from `auth` (the verified principal, when the endpoint authenticates).
   * A session belongs to the principal that opened it: to anyone else its id is unknown (404).
   */
  async fetch(request: Request, auth?: AuthInfo): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (!session || session.principal !== principalOf(auth))
        return jsonRpcError(
          404,
          -32001,
          `Session ${sessionId.slice(0, 100)} not found; initialize again`,
        );
      const done = session.activity.begin();
      const handled = session.transport.handleRequest(
        request,
        auth ? { authInfo: auth } : undefined,
      );
      const response = await handled.catch((error: unknown) => {
        done();
        throw error;
      });
      if (!isEventStream(response)) {
        done();
        return response;
      }
      if (request.method !== "GET") return whenStreamEnds(response, done);
      return this.#pushStream(session, request, response, done);
    }
    const body: unknown =
      request.method === "POST"
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!isInitializeRequest(body)) {
      // A malformed initialize is told what is wrong with it, not that it lacks a session.
      const invalid = isRequestOf(body, "initialize")
        ? invalidParams("initialize", body.params, "method")
        : undefined;
      if (invalid) return errorResponse(400, invalid, (body as { id: string | number }).id);
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: a 2025-era request needs the Mcp-Session-Id header that initialize returned",
      );
    }
    const holder = holderOf(auth);
    const full = this.#count.full(holder);
    if (full)
      return errorResponse(
        full === "sessionsTotal" ? 503 : 429,
        sessionLimitReached(this.#served.room.limits, full, this.#idleMs),
        (body as unknown as { id: string | number }).id,
      );
    const transport = await this.#open(auth, holder);
    const response = await transport.handleRequest(request, auth ? { authInfo: auth } : undefined);
    // An initialize the SDK refused opened no session: nothing will close it.
    if (transport.sessionId === undefined) await transport.close();
    return response;
  }

  /**
   * The session's GET stream, primed with an event id it can be resumed from. The SDK's
   * transport keeps the stream of a client that went away until it writes to it (a 409 for a
   * reconnect meanwhile); the request's signal tells at once, and ends it.
   */
  #pushStream(session: Session, request: Request, response: Response, done: () => void): Response {
    clearTimeout(session.reconnectGrace);
    const end = () => {
      done();
      session.reconnectGrace = setTimeout(
        () => session.connection.endSubscriptions(),
        RECONNECT_GRACE_MS,
      ).unref();
    };
    // A resumed stream is primed too: its head goes out before anything is replayed or sent.
    return primed(
      whenStreamEnds(response, end, request.signal),
      session.events.mark(STANDALONE_STREAM),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.values()].map((session) => session.transport.close()));
  }

  /** A session for `auth`, counted against `holder` (`holderOf`) until it closes. */
  async #open(
    auth: AuthInfo | undefined,
    holder: string | undefined,
  ): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = buildServer(this.#served);
    const connection = new Connection(this.#served, server, this.#onerror);
    let unhold = () => {};
    this.#count.open(holder);
    let counted = true;
    const events = new SessionEventStore();
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: events,
        retryInterval: SSE_RETRY_MS,
        onsessioninitialized: (id) => {
          unhold = this.#held.hold(auth, () => void transport.close().catch(this.#onerror));
          this.#sessions.set(id, {
            transport,
            connection,
            principal: principalOf(auth),
            activity: new Activity(),
            events,
            reconnectGrace: undefined,
          });
        },
      });
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      unhold();
      if (counted) this.#count.close(holder);
      counted = false;
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
      onclose?.();
    };
    return transport;
  }

  #closeIdle(): void {
    const now = performance.now();
    for (const session of this.#sessions.values()) {
      if (session.activity.idleSince(now) > this.#idleMs)
        void session.transport.close().catch(this.#onerror);
    }
  }
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly connection: Connection;
  /** The client id of the principal that opened it; undefined on an endpoint without auth. */
  readonly principal: string | undefined;
  readonly activity: Activity;
  readonly events: SessionEventStore;
  /** Set while the GET stream is away: when its subscriptions end if it does not come back. */
  reconnectGrace: NodeJS.Timeout | undefined;
}

/**
 * How long a session's subscriptions outlive its dropped GET stream: twice the `retry:` its
 * client was told to wait before reconnecting.
 */
export const RECONNECT_GRACE_MS = 2 * SSE_RETRY_MS;

/** The SDK transport's id of a session's GET stream (`_standaloneSseStreamId`). */
const STANDALONE_STREAM = "_GET_stream";

/** Requests in progress and streams open in one session, and since when it has had none. */
class Activity {
  #open = 0;
  #lastEnded = performance.now();

  /** Marks a request or stream as open; returns what ends it (once, however often called). */
  begin(): () => void {
    this.#open++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#open--;
      this.#lastEnded = performance.now();
    };
  }

  /** Milliseconds without anything open; 0 while something is. */
  idleSince(now: number): number {
    return this.#open > 0 ? 0 : now - this.#lastEnded;
  }
}

function isRequestOf(
  message: unknown,
  method: string,
): message is { method: string; id: string | number; params?: unknown } {
  const { method: named, id } = (message ?? {}) as { method?: unknown; id?: unknown };
  return named === method && (typeof id === "string" || typeof id === "number");
}

function principalOf(auth: AuthInfo | undefined): string | undefined {
  return auth?.clientId;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
