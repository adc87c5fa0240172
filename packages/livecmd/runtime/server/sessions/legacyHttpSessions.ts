import { randomUUID } from "node:crypto";
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { Activity } from "../served/activity.ts";
import type { HeldByToken } from "../auth/heldByToken.ts";
import { buildServer } from "../methods/buildServer.ts";
import { ClientConnection } from "../../live/connection.ts";
import { isEventStream, primed, SSE_RETRY_MS, whenStreamEnds } from "../../live/eventStream.ts";
import { OpenCount } from "../../live/openCount.ts";
import { SessionEventStore } from "./sessionEventStore.ts";
import {
  errorResponse,
  sessionLimitReached,
  sessionNotFound,
  sessionRequired,
} from "../errors/protocolErrors.ts";
import { holderOf } from "../log/requestContext.ts";
import { principalOf } from "../../model/principal.ts";
import { invalidParams } from "../sdkAdapter/requestParams.ts";
import { replayInitialize } from "./resumedSession.ts";
import type { ServedApp } from "../served/servedApp.ts";
import { SessionAnswers } from "./sessionAnswers.ts";
import { SharedSubscriptions } from "../../live/sharedSubscriptions.ts";
import type { PostgresSessionStore } from "../../db/postgres/sessionStore.ts";
import type { SessionMessage } from "../../db/postgres/sessionMessage.ts";

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
 *
 * On PostgreSQL (`shared`) sessions belong to no process: each is a row (`sessionTables.ts`),
 * and a process given a request of a session it has not seen loads it and replays its
 * `initialize` into a fresh instance (`replayInitialize`), so any replica behind a load balancer
 * answers any request. Its subscriptions are rows too, watched by the process holding its GET
 * stream (`SharedSubscriptions`); a process lets its copy of a session go when it is idle here,
 * and ends the session only on DELETE, revocation, or when no process marked it active for
 * `idleMs` (whichever process sees that first). A client's answer to a request its copy sent (a
 * confirmation's question) is relayed to that copy from whichever process it reaches
 * (`SessionAnswers`).
 */
export class LegacyHttpSessions {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #idleMs: number;
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;
  readonly #held: HeldByToken;
  readonly #count: OpenCount;
  readonly #shared: PostgresSessionStore | undefined;
  /** Where this process's id goes in messages: other processes tell its streams apart by it. */
  readonly #self = randomUUID();
  /** Shared sessions being loaded here, so that concurrent requests load each once. */
  readonly #resuming = new Map<string, Promise<Session | undefined>>();
  readonly #hearing: Promise<() => void> | undefined;
  readonly #sweepMs: number;

  constructor(
    served: ServedApp,
    onerror: (error: Error) => void,
    idleMs: number,
    held: HeldByToken,
    shared?: PostgresSessionStore,
  ) {
    this.#served = served;
    this.#held = held;
    this.#count = new OpenCount(served.room.limits, "sessionsPerPrincipal", "sessionsTotal");
    this.#onerror = onerror;
    this.#idleMs = idleMs;
    this.#shared = shared;
    // Shared, a session is marked active at every sweep it was active since: often enough that
    // no process's mark is older than `idleMs` while it serves it.
    this.#sweepMs = Math.min(shared ? idleMs / 3 : idleMs, 60_000);
    this.#sweep = setInterval(
      () => (shared ? void this.#sweepShared(shared).catch(onerror) : this.#closeIdle()),
      this.#sweepMs,
    ).unref();
    this.#hearing = shared?.hear((message) => this.#heard(message));
    this.#hearing?.catch(onerror);
  }

  /**
   * Resolves once this process hears the others (shared sessions), at once otherwise. A
   * database that cannot be reached is logged, not thrown: the process serves, each statement
   * answering with the database's error, and `/healthz` says it is not ready.
   */
  async ready(): Promise<void> {
    await this.#hearing?.catch(() => undefined);
  }

  /**
   * A 2025-era request, from `auth` (the verified principal, when the endpoint authenticates).
   * A session belongs to the principal that opened it: to anyone else its id is unknown (404).
   */
  async fetch(request: Request, auth?: AuthInfo): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId) ?? (await this.#resume(sessionId, auth));
      if (!session || session.principal !== principalOf(auth))
        return errorResponse(404, sessionNotFound(sessionId));
      if (session.shared && auth) session.shared.auth = auth;
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
      return errorResponse(400, sessionRequired());
    }
    const holder = holderOf(auth);
    const full = this.#count.full(holder);
    if (full)
      return errorResponse(
        full === "sessionsTotal" ? 503 : 429,
        sessionLimitReached(this.#served.room.limits, full, this.#idleMs),
        (body as unknown as { id: string | number }).id,
      );
    const transport = await this.#open(auth, { holder, initialize: body.params });
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
    if (shared && this.#shared) {
      // Any process that held the stream lets it go; this one watches the subscriptions.
      this.#shared
        .tell({ session: session.id, stream: this.#self })
        .then(() => shared.streamOpened())
        .catch(this.#onerror);
    }
    const end = () => {
      done();
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
    for (const session of this.#sessions.values()) session.transport.closeStandaloneSSEStream();
  }

  /**
   * Closes every session here. Shared sessions are only let go (their streams end, and their
   * clients reconnect to another process); the others end.
   */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    void this.#hearing?.then((stop) => stop()).catch(() => undefined);
    await Promise.all([...this.#sessions.values()].map((session) => this.#letGo(session)));
  }

  /**
   * A session for `auth`: a new one counted against `opening.holder` (`holderOf`) until it
   * closes, or, with `opening.resumed`, a shared session opened elsewhere, under its id.
   */
  async #open(
    auth: AuthInfo | undefined,
    opening: { holder?: string; initialize: unknown; resumed?: string },
  ): Promise<WebStandardStreamableHTTPServerTransport> {
    const store = this.#shared;
    const server = buildServer(this.#served);
    let shared: SharedSubscriptions | undefined;
    const connection = new ClientConnection(this.#served, server, this.#onerror, (uri) =>
      shared?.notified(uri),
    );
    let unhold = () => {};
    const { holder, resumed } = opening;
    let counted = resumed === undefined;
    if (counted) this.#count.open(holder);
    // A shared session's event ids rise across processes (they start at the time in µs), so a
    // client resuming on this process with another's id is sent only what came after it.
    const events = new SessionEventStore(store ? Date.now() * 1000 : 0);
    let answers: SessionAnswers | undefined;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => resumed ?? randomUUID(),
        eventStore: events,
        retryInterval: SSE_RETRY_MS,
        onsessioninitialized: async (id) => {
          if (store) {
            // Stored before the client has the id: its next request may reach any process.
            if (resumed === undefined)
              await store.create(id, principalOf(auth), opening.initialize);
            shared = new SharedSubscriptions(store, id, this.#served.room, this.#onerror);
            shared.auth = auth;
            shared.serve(server, connection);
          }
          unhold = this.#held.hold(auth, () => void this.#end(id));
          this.#sessions.set(id, {
            id,
            transport,
            connection,
            principal: principalOf(auth),
            activity: new Activity(),
            events,
            reconnectGrace: undefined,
            shared,
            answers,
            leaving: false,
          });
        },
      });
    if (store)
      answers = new SessionAnswers(transport, (answer) =>
        store.tell({ session: transport.sessionId!, answer }).catch(this.#onerror),
      );
    await server.connect(transport);
    answers?.takeAnswers();
    const onclose = transport.onclose;
    transport.onclose = () => {
      unhold();
      if (counted) this.#count.close(holder);
      counted = false;
      const id = transport.sessionId;
      const session = id === undefined ? undefined : this.#sessions.get(id);
      if (session) {
        this.#sessions.delete(session.id);
        clearTimeout(session.reconnectGrace);
        // Ended here (a DELETE, a revoked token): ended for every process.
        if (store && !session.leaving) store.end(session.id).catch(this.#onerror);
      }
      onclose?.();
    };
    return transport;
  }

  /** A shared session opened elsewhere, set up here; undefined when there is no such session. */
  #resume(id: string, auth: AuthInfo | undefined): Promise<Session | undefined> {
    const store = this.#shared;
    if (!store) return Promise.resolve(undefined);
    let resuming = this.#resuming.get(id);
    if (!resuming) {
      resuming = (async () => {
        const stored = await store.load(id);
        // Another principal's session is not loaded at all: to it, the id is unknown.
        if (!stored || stored.principal !== principalOf(auth)) return undefined;
        const transport = await this.#open(auth, { initialize: stored.initialize, resumed: id });
        if (!(await replayInitialize(transport, stored.initialize, auth))) {
          await transport.close();
          return undefined;
        }
        return this.#sessions.get(id);
      })().finally(() => this.#resuming.delete(id));
      this.#resuming.set(id, resuming);
    }
    return resuming;
  }

  /** Ends a session for every process (revocation). */
  async #end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (session) await session.transport.close().catch(this.#onerror);
  }

  /** Closes this process's copy of a session; a shared session goes on for the others. */
  async #letGo(session: Session): Promise<void> {
    session.leaving = true;
    await session.transport.close().catch(this.#onerror);
  }

  /** What another process told of a shared session (undefined: messages may have been lost). */
  #heard(message: SessionMessage | undefined): void {
    if (!message) {
      for (const session of this.#sessions.values())
        if (session.shared?.streaming) session.shared.sync().catch(this.#onerror);
      return;
    }
    const session = this.#sessions.get(message.session);
    if (!session) return;
    if ("closed" in message) void this.#letGo(session);
    else if ("subscriptions" in message) {
      if (session.shared?.streaming) session.shared.sync().catch(this.#onerror);
    } else if ("unsubscribed" in message) session.shared?.unsubscribed(message.unsubscribed);
    else if ("answer" in message) session.answers?.deliver(message.answer);
    else if (message.stream !== this.#self && session.shared) {
      // The client's stream is now on another process: this one's, if any, is stale.
      clearTimeout(session.reconnectGrace);
      session.shared.streamGone();
      session.transport.closeStandaloneSSEStream();
    }
  }

  /**
   * Marks the shared sessions active here as active, ends those no process marked for
   * `idleMs`, and lets go of the copies idle here (they are loaded again when used).
   */
  async #sweepShared(store: PostgresSessionStore): Promise<void> {
    const now = performance.now();
    const active: string[] = [];
    for (const session of this.#sessions.values()) {
      if (session.activity.idleSince(now) < this.#sweepMs) active.push(session.id);
      else void this.#letGo(session);
    }
    await store.touch(active);
    await store.expire(this.#idleMs);
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
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly connection: ClientConnection;
  /** The client id of the principal that opened it; undefined on an endpoint without auth. */
  readonly principal: string | undefined;
  readonly activity: Activity;
  readonly events: SessionEventStore;
  /** Set while the GET stream is away: when its subscriptions end if it does not come back. */
  reconnectGrace: NodeJS.Timeout | undefined;
  /** A shared session's subscriptions (on PostgreSQL). */
  readonly shared: SharedSubscriptions | undefined;
  /** Its client's answers to this copy's requests, wherever they arrive (on PostgreSQL). */
  readonly answers: SessionAnswers | undefined;
  /** Closed here only (shutdown, idle here, ended by another process): the session goes on. */
  leaving: boolean;
}

/**
 * How long a session's subscriptions outlive its dropped GET stream: twice the `retry:` its
 * client was told to wait before reconnecting.
 */
export const RECONNECT_GRACE_MS = 2 * SSE_RETRY_MS;

/** The SDK transport's id of a session's GET stream (`_standaloneSseStreamId`). */
const STANDALONE_STREAM = "_GET_stream";

function isRequestOf(
  message: unknown,
  method: string,
): message is { method: string; id: string | number; params?: unknown } {
  const { method: named, id } = (message ?? {}) as { method?: unknown; id?: unknown };
  return named === method && (typeof id === "string" || typeof id === "number");
}
