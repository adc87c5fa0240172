import type {
  AuthInfo,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/**
 * Brings a fresh transport and server instance to where a 2025-era session opened on another
 * process is: its `initialize` (as the client sent it, from the shared table) and
 * `notifications/initialized` are handed to the transport as the client once sent them. The
 * transport then answers under the session's id (`sessionIdGenerator` gives it) and the instance
 * knows the client's capabilities and protocol version, through the SDK's own paths rather than
 * its private fields. The answers go nowhere: the client had them from the first process.
 */
export async function replayInitialize(
  transport: WebStandardStreamableHTTPServerTransport,
  initialize: unknown,
  auth: AuthInfo | undefined,
): Promise<boolean> {
  const options = auth ? { authInfo: auth } : undefined;
  const opened = await transport.handleRequest(
    post({ jsonrpc: "2.0", id: REPLAYED_ID, method: "initialize", params: initialize }),
    options,
  );
  // Read to its end: the instance has then handled the initialize (an event stream ends with it).
  await opened.text();
  const sessionId = transport.sessionId;
  if (!opened.ok || sessionId === undefined) return false;
  const initialized = await transport.handleRequest(
    post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": sessionId }),
    options,
  );
  await initialized.text();
  return initialized.ok;
}

/** The id of the replayed `initialize`; its answer is read by nobody. */
const REPLAYED_ID = "livecmd-resumed-session";

function post(message: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://livecmd.invalid/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(message),
  });
}
