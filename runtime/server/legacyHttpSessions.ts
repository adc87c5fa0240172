import { randomUUID } from "node:crypto";
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
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
 */
export class LegacyHttpSessions {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #sessions = new Map<string, Session>();

  constructor(served: ServedApp, onerror: (error: Error) => void) {
    this.#served = served;
    this.#onerror = onerror;
  }

  async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.#sessions.get(sessionId);
      if (!session) return jsonRpcError(404, -32001, `Session ${sessionId} not found; initialize again`);
      const response = await session.transport.handleRequest(request);
      if (request.method !== "GET" || !isEventStream(response)) return response;
      // The SDK's transport keeps the stream of a client that went away until it writes to it;
      // the request's signal tells at once.
      const end = () => session.connection.endSubscriptions();
      request.signal.addEventListener("abort", end, { once: true });
      return whenStreamEnds(openedAtOnce(response), end);
    }
    const body: unknown = request.method === "POST" ? await request.clone().json().catch(() => undefined) : undefined;
    if (!isInitializeRequest(body)) return jsonRpcError(400, -32000, "Bad Request: a 2025-era request needs the Mcp-Session-Id header that initialize returned");
    return (await this.#open()).handleRequest(request);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => session.transport.close()));
  }

  async #open(): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = buildServer(this.#served);
    const connection = new Connection(this.#served, server, this.#onerror);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.#sessions.set(id, { transport, connection }),
    });
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
      onclose?.();
    };
    return transport;
  }
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly connection: Connection;
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
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
