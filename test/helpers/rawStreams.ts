/** Event streams of the HTTP endpoint opened by hand, for what the SDK's client hides. */

const JSON_AND_SSE = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The 2025-era `initialize` request a raw client opens its session with. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  },
});

export const MODERN_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
};

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** A 2026-07-28 `subscriptions/listen` for `uris`: its event stream (status 200) or refusal. */
export function openListen(url: URL, uris: string[], token?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      ...JSON_AND_SSE,
      ...bearer(token),
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "listen-1",
      method: "subscriptions/listen",
      params: { _meta: MODERN_ENVELOPE, notifications: { resourceSubscriptions: uris } },
    }),
  });
}

/**
 * A 2025-era session opened by a raw `initialize` (declaring `capabilities`, none when absent):
 * the answer's status, session id and text.
 */
export async function initialize(
  url: URL,
  token?: string,
  capabilities?: Record<string, unknown>,
): Promise<{ status: number; session: string | null; text: string }> {
  const opening = JSON.parse(INITIALIZE) as { params: Record<string, unknown> };
  const response = await fetch(url, {
    method: "POST",
    headers: { ...JSON_AND_SSE, ...bearer(token) },
    body: capabilities
      ? JSON.stringify({ ...opening, params: { ...opening.params, capabilities } })
      : INITIALIZE,
  });
  const text = await response.text();
  return { status: response.status, session: response.headers.get("mcp-session-id"), text };
}

/** A request of the 2025 session `session`. */
export function sessionRequest(
  url: URL,
  session: string,
  message: Record<string, unknown>,
  token?: string,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      ...JSON_AND_SSE,
      ...bearer(token),
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
}

/** The GET stream of the 2025 session `session`. */
export function openGetStream(
  url: URL,
  session: string,
  token?: string,
  lastEventId?: string,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: "GET",
    ...(signal && { signal }),
    headers: {
      accept: "text/event-stream",
      ...bearer(token),
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
      ...(lastEventId !== undefined && { "last-event-id": lastEventId }),
    },
  });
}

/** Everything the event stream carries until the server ends it. */
export async function untilEnd(stream: Response): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream.body!) text += decoder.decode(chunk as Uint8Array);
  return text;
}

/** The JSON-RPC messages an event stream carries, as they arrive. */
export async function* messagesOf(stream: Response): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream.body!) {
    pending += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = pending.indexOf("\n\n"); end >= 0; end = pending.indexOf("\n\n")) {
      const data = /^data: (.+)$/m.exec(pending.slice(0, end))?.[1];
      pending = pending.slice(end + 2);
      if (data) yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}
