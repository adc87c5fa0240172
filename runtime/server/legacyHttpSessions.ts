import { randomUUID } from "node:crypto";
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { buildServer } from "./buildServer.ts";
import { Connection } from "./connection.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * The 2025-era leg of the HTTP endpoint, with sessions. The SDK's default legacy fallback is
 * stateless and can push nothing, so a 2025 client would never hear `list_changed`; here each
 * `initialize` opens a session with its own instance and connection, and the client's GET
 * stream carries what the server pushes.
 */
export class LegacyHttpSessions {
  readonly #served: ServedApp;
  readonly #onerror: (error: Error) => void;
  readonly #sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  constructor(served: ServedApp, onerror: (error: Error) => void) {
    this.#served = served;
    this.#onerror = onerror;
  }

  async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const transport = this.#sessions.get(sessionId);
      if (!transport) return jsonRpcError(404, -32001, `Session ${sessionId} not found; initialize again`);
      const response = await transport.handleRequest(request);
      return request.method === "GET" ? openedAtOnce(response) : response;
    }
    const body: unknown = request.method === "POST" ? await request.clone().json().catch(() => undefined) : undefined;
    if (!isInitializeRequest(body)) return jsonRpcError(400, -32000, "Bad Request: a 2025-era request needs the Mcp-Session-Id header that initialize returned");
    return (await this.#open()).handleRequest(request);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((transport) => transport.close()));
  }

  async #open(): Promise<WebStandardStreamableHTTPServerTransport> {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.#sessions.set(id, transport),
    });
    const server = buildServer(this.#served);
    new Connection(this.#served, server, this.#onerror);
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
      onclose?.();
    };
    return transport;
  }
}

/**
 * The push stream (GET) with an SSE comment up front: without a first chunk the response head
 * stays unsent until the first keep-alive, and the client cannot tell the stream is there.
 */
function openedAtOnce(response: Response): Response {
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const opening = new TextEncoder().encode(": stream open\n\n");
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start: (controller) => controller.enqueue(opening),
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
