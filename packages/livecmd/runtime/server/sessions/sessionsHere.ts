import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { SessionStore } from "../../db/sharedState.ts";
import { ClientConnection } from "../methods/clientConnection.ts";
import { SSE_RETRY_MS } from "../streams/eventStream.ts";
import { OpenCount } from "../../live/openCount.ts";
import { SharedSubscriptions } from "./sharedSubscriptions.ts";
import { principalOf } from "../../model/principal.ts";
import type { HeldByToken } from "../auth/heldByToken.ts";
import { buildServer } from "../methods/buildServer.ts";
import { Activity } from "../served/activity.ts";
import type { ServedApp } from "../served/servedApp.ts";
import type { Opening, Session } from "./session.ts";
import type { SessionAnswers } from "./sessionAnswers.ts";
import { SessionEventStore } from "./sessionEventStore.ts";
import { SharedSessions, type SessionCopies } from "./sharedSessions.ts";

/**
 * How long a revoked session's calls in progress have to answer before it closes: what its token
 * ends answers at once, and a read or a command that started in time may finish.
 */
const ANSWERS_BEFORE_END_MS = 1_000;

/**
 * This process's copies of the 2025-era sessions: each opened with its own transport, server
 * instance and connection, counted against its holder (`sessionsPerPrincipal`,
 * `sessionsTotal`) and held by its token until it closes. On PostgreSQL (`shared`) a copy is
 * stored when its session opens, and its subscriptions are the session's shared ones.
 */
export class SessionsHere implements SessionCopies {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #held: HeldByToken;
  readonly #sessions = new Map<string, Session>();
  /** The sessions open, by holder and in all. */
  readonly count: OpenCount;
  readonly shared: SharedSessions | undefined;

  constructor(
    served: ServedApp,
    onerror: (error: Error) => void,
    held: HeldByToken,
    store?: SessionStore,
  ) {
    this.#served = served;
    this.#onerror = onerror;
    this.#held = held;
    this.count = new OpenCount(served.room.limits, "sessionsPerPrincipal", "sessionsTotal");
    this.shared = store && new SharedSessions(store, this, onerror);
  }

  copy(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  copies(): Iterable<Session> {
    return this.#sessions.values();
  }

  /** A session's transport, connected to its own server instance; the session is kept once the SDK gives it an id. */
  async open(opening: Opening): Promise<WebStandardStreamableHTTPServerTransport> {
    const parts = this.#parts(opening);
    await parts.server.connect(parts.transport);
    parts.answers?.takeAnswers();
    const onclose = parts.transport.onclose;
    parts.transport.onclose = () => {
      this.#closed(parts, opening.holder);
      onclose?.();
    };
    return parts.transport;
  }

  /** What a session is made of before the SDK gives it an id, counted against its holder. */
  #parts(opening: Opening): SessionParts {
    const server = buildServer(this.#served, this.#held);
    const counted = opening.resumed === undefined;
    if (counted) this.count.open(opening.holder);
    const connection = new ClientConnection(this.#served, server, this.#onerror, (uri) =>
      parts.shared?.notified(uri),
    );
    // A shared session's event ids rise across processes (they start at the time in µs), so a
    // client resuming on this process with another's id is sent only what came after it.
    const events = new SessionEventStore(this.shared ? Date.now() * 1000 : 0);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => opening.resumed ?? randomUUID(),
        eventStore: events,
        retryInterval: SSE_RETRY_MS,
        onsessioninitialized: (id) => this.#initialized(id, parts, opening),
      });
    const answers = this.shared?.answersOf(transport);
    const parts: SessionParts = {
      server,
      connection,
      events,
      transport,
      answers,
      shared: undefined,
      unhold: () => {},
      counted,
    };
    return parts;
  }

  /** The SDK gave the session its id: stored (shared), held by its token, and kept here. */
  async #initialized(id: string, parts: SessionParts, opening: Opening): Promise<void> {
    const { auth, initialize, resumed } = opening;
    const store = this.shared?.store;
    if (store) {
      // Stored before the client has the id: its next request may reach any process.
      if (resumed === undefined) await store.create(id, principalOf(auth), initialize);
      parts.shared = new SharedSubscriptions(store, id, this.#served.room, this.#onerror);
      parts.shared.auth = auth;
      parts.shared.serve(parts.server, parts.connection);
    }
    parts.unhold = this.#held.hold(auth, () => void this.#end(id));
    this.#sessions.set(id, {
      id,
      transport: parts.transport,
      connection: parts.connection,
      principal: principalOf(auth),
      activity: new Activity(),
      events: parts.events,
      reconnectGrace: undefined,
      shared: parts.shared,
      answers: parts.answers,
      leaving: false,
    });
  }

  /** The session's transport closed: its holder's count, its token's hold and its copy go. */
  #closed(parts: SessionParts, holder: string | undefined): void {
    parts.unhold();
    if (parts.counted) this.count.close(holder);
    parts.counted = false;
    const id = parts.transport.sessionId;
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(session.id);
    clearTimeout(session.reconnectGrace);
    if (!session.leaving) this.shared?.ended(session.id);
  }

  /**
   * Ends a session for every process (revocation). Its push stream goes at once; its calls in
   * progress answer first (a waiting watch call ends with an error, held by the same token),
   * since closing the transport would cut their streams with no answer, and the client would wait.
   */
  async #end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    session.transport.closeStandaloneSSEStream();
    await session.activity.finished(ANSWERS_BEFORE_END_MS);
    await session.transport.close().catch(this.#onerror);
  }

  /** Closes this process's copy of a session; a shared session goes on for the others. */
  async letGo(session: Session): Promise<void> {
    session.leaving = true;
    await session.transport.close().catch(this.#onerror);
  }
}

/** A session's parts, made before the SDK gives it an id; some set once it does. */
interface SessionParts {
  readonly server: ReturnType<typeof buildServer>;
  readonly connection: ClientConnection;
  readonly events: SessionEventStore;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly answers: SessionAnswers | undefined;
  shared: SharedSubscriptions | undefined;
  /** Stops the token's hold on the session. */
  unhold: () => void;
  /** Whether it counts against its holder (until it closes; a resumed copy does not). */
  counted: boolean;
}
