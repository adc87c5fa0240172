import {
  isInitializeRequest,
  isJsonContentType,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import type { SessionStore } from "../../db/sharedState.ts";
import { isEventStream, primed, whenStreamEnds } from "../streams/eventStream.ts";
import { principalOf } from "../../model/principal.ts";
import type { HeldByToken } from "../auth/heldByToken.ts";
import { errorResponse } from "../errors/protocolErrors.ts";
import { sessionLimitReached } from "../errors/limitErrors.ts";
import {
  sessionNotFound,
  sessionRequired,
  unsupportedMediaType,
} from "../errors/frontDoorErrors.ts";
import { holderOf } from "../log/requestContext.ts";
import { invalidParams } from "../sdkAdapter/requestParams.ts";
import type { ServedApp } from "../served/servedApp.ts";
import { RECONNECT_GRACE_MS, type Session } from "./session.ts";
import { SessionsHere } from "./sessionsHere.ts";

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
 * each has its own server instance (`SessionsHere`).
 *
 * On PostgreSQL (`shared`) sessions belong to no process (`SharedSessions`): any replica behind
 * a load balancer answers any request. Their subscriptions are rows too, watched by the process
 * holding the GET stream (`SharedSubscriptions`); a process lets its copy of a session go when it is idle here,
 * and ends the session only on DELETE, revocation, or when no process marked it active for
 * `idleMs` (whichever process sees that first). A client's answer to a request its copy sent (a
 * confirmation's question) is relayed to that copy from whichever process it reaches
 * (`SessionAnswers`).
 */
export class LegacyHttpSessions {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #idleMs: number;
  readonly #here: SessionsHere;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    served: ServedApp,
    onerror: (error: Error) => void,
    idleMs: number,
    held: HeldByToken,
    store?: SessionStore,
  ) {
    this.#served = served;
    this.#onerror = onerror;
    this.#idleMs = idleMs;
    this.#here = new SessionsHere(served, onerror, held, store);
    const shared = this.#here.shared;
    // Shared, a session is marked active at every sweep it was active since: often enough that
    // no process's mark is older than `idleMs` while it serves it.
    const sweepMs = Math.min(shared ? idleMs / 3 : idleMs, 60_000);
    this.#sweep = setInterval(
      () => (shared ? void shared.sweep(sweepMs, idleMs).catch(onerror) : this.#closeIdle()),
      sweepMs,
    ).unref();
  }

  /**
   * Resolves once this process hears the others (shared sessions), at once otherwise. A
   * database that cannot be reached is logged, not thrown: the process serves, each statement
   * answering with the database's error, and `/healthz` says it is not ready.
   */
  async ready(): Promise<void> {
    await this.#here.shared?.ready();
  }

  /**
   * A 2025-era request, from `auth` (the verified principal, when the endpoint authenticates).
   * A session belongs to the principal that opened it: to anyone else its id is unknown (404).
   */
  async fetch(request: Request, auth?: AuthInfo): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) return this.#initialize(request, auth);
    const session =
      this.#here.copy(sessionId) ?? (await this.#here.shared?.resume(sessionId, auth));
    if (!session || session.principal !== principalOf(auth))
      return errorResponse(404, sessionNotFound(sessionId));
    if (session.shared && auth) session.shared.auth = auth;
    const done = session.activity.begin();
    const handled = session.transport.handleRequest(request, auth ? { authInfo: auth } : undefined);
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

  /**
   * A request without a session: an `initialize` opens one, within the session limits. A POST
   * whose body is not declared JSON is told so first, as the SDK would, whatever it holds.
   */
  async #initialize(request: Request, auth: AuthInfo | undefined): Promise<Response> {
    if (request.method === "POST" && !isJsonContentType(request.headers.get("content-type")))
      return errorResponse(415, unsupportedMediaType());
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
      return errorResponse(400, sessionRequired());
    }
    const holder = holderOf(auth);
    const full = this.#here.count.full(holder);
    if (full)
      return errorResponse(
        full === "sessionsTotal" ? 503 : 429,
        sessionLimitReached(this.#served.room.limits, full, this.#idleMs),
        (body as unknown as { id: string | number }).id,
      );
    const transport = await this.#here.open({ auth, holder, initialize: body.params });
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
    const shared = session.shared;
    let open = true;
    // Any process that held the stream lets it go; this one watches the subscriptions.
    if (shared) this.#here.shared?.streamHere(session, () => open);
    const end = () => {
      open = false;
      done();
      shared?.streamEnded();
      session.reconnectGrace = setTimeout(
        () => (shared ? shared.streamGone() : session.connection.endSubscriptions()),
        RECONNECT_GRACE_MS,
      ).unref();
    };
    // A resumed stream is primed too: its head goes out before anything is replayed or sent.
    return primed(
      whenStreamEnds(response, end, request.signal),
      session.events.mark(STANDALONE_STREAM),
    );
  }

  /**
   * Ends every GET stream here (a shutdown): each client reconnects, behind a balancer to
   * another process, and on PostgreSQL that process takes its subscriptions up.
   */
  endStreams(): void {
    for (const session of this.#here.copies()) session.transport.closeStandaloneSSEStream();
  }

  /**
   * Closes every session here. Shared sessions are only let go (their streams end, and their
   * clients reconnect to another process); the others end.
   */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    this.#here.shared?.close();
    await Promise.all([...this.#here.copies()].map((session) => this.#here.letGo(session)));
  }

  #closeIdle(): void {
    const now = performance.now();
    for (const session of this.#here.copies()) {
      if (session.activity.idleSince(now) > this.#idleMs)
        void session.transport.close().catch(this.#onerror);
    }
  }
}

/** The SDK transport's id of a session's GET stream (`_standaloneSseStreamId`). */
const STANDALONE_STREAM = "_GET_stream";

function isRequestOf(
  message: unknown,
  method: string,
): message is { method: string; id: string | number; params?: unknown } {
  const { method: named, id } = (message ?? {}) as { method?: unknown; id?: unknown };
  return named === method && (typeof id === "string" || typeof id === "number");
}
