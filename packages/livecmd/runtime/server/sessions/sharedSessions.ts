import { randomUUID } from "node:crypto";
import type {
  AuthInfo,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { SessionMessage, SessionStore } from "../../db/sharedState.ts";
import { principalOf } from "../../model/principal.ts";
import { replayInitialize } from "./resumedSession.ts";
import type { Opening, Session } from "./session.ts";
import { SessionAnswers } from "./sessionAnswers.ts";

/** What the shared side reaches of this process's copies of the sessions (`LegacyHttpSessions`). */
export interface SessionCopies {
  copy(id: string): Session | undefined;
  copies(): Iterable<Session>;
  open(opening: Opening): Promise<WebStandardStreamableHTTPServerTransport>;
  letGo(session: Session): Promise<void>;
}

/**
 * The 2025-era sessions replicas share on PostgreSQL: each is a row (`sessionTables.ts`), and a
 * process given a request of a session it has not seen loads it and replays its `initialize`
 * into a fresh instance (`replayInitialize`), so any replica behind a load balancer answers any
 * request. What one process does to a session (its GET stream taken, a subscription ended, the
 * session closed, a client's answer) is told to the others on the sessions' channel.
 */
export class SharedSessions {
  readonly store: SessionStore;
  readonly #copies: SessionCopies;
  readonly #onerror: (error: Error) => void;
  /** Where this process's id goes in messages: other processes tell its streams apart by it. */
  readonly #self = randomUUID();
  /** Shared sessions being loaded here, so that concurrent requests load each once. */
  readonly #resuming = new Map<string, Promise<Session | undefined>>();
  readonly #hearing: Promise<() => void>;

  constructor(store: SessionStore, copies: SessionCopies, onerror: (error: Error) => void) {
    this.store = store;
    this.#copies = copies;
    this.#onerror = onerror;
    this.#hearing = store.hear((message) => this.#heard(message));
    this.#hearing.catch(onerror);
  }

  /** Resolves once this process hears the others; a database that cannot be reached is logged. */
  async ready(): Promise<void> {
    await this.#hearing.catch(() => undefined);
  }

  close(): void {
    void this.#hearing.then((stop) => stop()).catch(() => undefined);
  }

  /** The answers of the session of `transport`, relayed to the copy whose request they answer. */
  answersOf(transport: WebStandardStreamableHTTPServerTransport): SessionAnswers {
    return new SessionAnswers(transport, (answer) =>
      this.store.tell({ session: transport.sessionId!, answer }).catch(this.#onerror),
    );
  }

  /**
   * `session`'s GET stream is here: any process that held it lets it go, then this one watches,
   * if the stream is `open` still (it may have ended while the others were told, and its
   * subscriptions with it: taken up then, they would be watched for good).
   */
  streamHere(session: Session, open: () => boolean): void {
    this.store
      .tell({ session: session.id, stream: this.#self })
      .then(() => (open() ? session.shared?.streamOpened() : undefined))
      .catch(this.#onerror);
  }

  /** Ended here (a DELETE, a revoked token): ended for every process. */
  ended(id: string): void {
    this.store.end(id).catch(this.#onerror);
  }

  /** A shared session opened elsewhere, set up here; undefined when there is no such session. */
  resume(id: string, auth: AuthInfo | undefined): Promise<Session | undefined> {
    let resuming = this.#resuming.get(id);
    if (!resuming) {
      resuming = this.#load(id, auth).finally(() => this.#resuming.delete(id));
      this.#resuming.set(id, resuming);
    }
    return resuming;
  }

  async #load(id: string, auth: AuthInfo | undefined): Promise<Session | undefined> {
    const stored = await this.store.load(id);
    // Another principal's session is not loaded at all: to it, the id is unknown.
    if (!stored || stored.principal !== principalOf(auth)) return undefined;
    const initialize = stored.initialize;
    const transport = await this.#copies.open({ auth, initialize, resumed: id });
    if (!(await replayInitialize(transport, initialize, auth))) {
      await transport.close();
      return undefined;
    }
    return this.#copies.copy(id);
  }

  /** What another process told of a shared session (undefined: messages may have been lost). */
  #heard(message: SessionMessage | undefined): void {
    if (!message) {
      for (const session of this.#copies.copies())
        if (session.shared?.streaming) session.shared.sync().catch(this.#onerror);
      return;
    }
    const session = this.#copies.copy(message.session);
    if (!session) return;
    if ("closed" in message) void this.#copies.letGo(session);
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
   * Marks the sessions active here in the last `sweepMs` as active, ends those no process
   * marked for `idleMs`, and lets go of the copies idle here (they are loaded again when used).
   */
  async sweep(sweepMs: number, idleMs: number): Promise<void> {
    const now = performance.now();
    const active: string[] = [];
    for (const session of this.#copies.copies()) {
      if (session.activity.idleSince(now) < sweepMs) active.push(session.id);
      else void this.#copies.letGo(session);
    }
    await this.store.touch(active);
    await this.store.expire(idleMs);
  }
}
