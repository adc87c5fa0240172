import { randomUUID } from "node:crypto";
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { buildServer } from "./buildServer.ts";
import { Connection } from "./connection.ts";
import { isEventStream, whenStreamEnds } from "./eventStream.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * The 2025-era leg of the HTTP endpoint, with sessions. The SDK's default legacy fallback is
 * stateless and can push nothing, so a 2025 client would never hear `list_changed`; here each
 * `initialize` opens a session with its own instance and connection, and the client's GET
 * stream carries what the server pushes.
 *
 * A session's `resources/subscribe` subscriptions end with its GET stream: nothing else could
 * deliver them, and on a loopback-only endpoint a closed stream means the client went away (the
 * SDK client's `close()` aborts its streams without ending the session).
 *
 * Clients rarely end their sessions (a DELETE), so a session with no request in progress and no
 * open stream for `idleMs` is closed; its client then gets 404 and initializes again, as the
 * protocol provides for.
 */
export class LegacyHttpSessions {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #idleMs: number;
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;

  constructor(served: ServedApp, onerror: (error: Error) => void, idleMs: number) {
    this.#served = served;
    this.#onerror = onerror;
    this.#idleMs = idleMs;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(idleMs, 60_000)).unref();
  }

  async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (!session)
        return jsonRpcError(404, -32001, `Session ${sessionId} not found; initialize again`);
      const done = session.activity.begin();
      const response = await session.transport.handleRequest(request).catch((error: unknown) => {
        done();
        throw error;
      });
      if (!isEventStream(response)) {
        done();
        return response;
      }
      if (request.method !== "GET") return whenStreamEnds(response, done);
      // The SDK's transport keeps the stream of a client that went away until it writes to it;
      // the request's signal tells at once.
      const end = () => {
        done();
        session.connection.endSubscriptions();
      };
      request.signal.addEventListener("abort", end, { once: true });
      return whenStreamEnds(openedAtOnce(response), end);
    }
    const body: unknown =
      request.method === "POST"
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!isInitializeRequest(body))
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: a 2025-era request needs the Mcp-Session-Id header that initialize returned",
      );
    return (await this.#open()).handleRequest(request);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.values()].map((session) => session.transport.close()));
  }

  async #open(): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = buildServer(this.#served);
    const connection = new Connection(this.#served, server, this.#onerror);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) =>
          void this.#sessions.set(id, { transport, connection, activity: new Activity() }),
      });
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
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
  readonly activity: Activity;
}

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

/**
 * The push stream (GET) with an SSE comment up front: without a first chunk the response head
 * stays unsent until the first keep-alive, and the client cannot tell the stream is there.
 * Takes an event stream (`isEventStream`).
 */
function openedAtOnce(response: Response): Response {
  const opening = new TextEncoder().encode(": stream open\n\n");
  const body = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => controller.enqueue(opening),
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
