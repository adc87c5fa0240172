import type { IncomingMessage, ServerResponse } from "node:http";
import cors from "cors";

/** What a browser page may send to the endpoint: the MCP request headers of both eras. */
const REQUEST_HEADERS = [
  "Accept",
  "Authorization",
  "Content-Type",
  "Last-Event-ID",
  "Mcp-Method",
  "Mcp-Name",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
];

/**
 * What a page may read of an answer: the 2025 era's session id (a client cannot continue its
 * session without it) and the bearer challenge (how a client learns where to get a token).
 */
const EXPOSED_HEADERS = ["Mcp-Session-Id", "WWW-Authenticate"];

export type CorsMiddleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * CORS for the origins the endpoint allows (`allowedOrigins`: loopback's own, the public URL's,
 * `--allowed-origin`): a preflight (`OPTIONS`) from one of them is answered here, and their
 * requests carry the CORS headers. Any other origin gets none: its preflight and its requests go
 * on to the front door, which refuses them (403), so a browser reveals nothing to the page.
 */
export function corsPolicy(allowedOrigins: ReadonlySet<string>): CorsMiddleware {
  return cors({
    origin: (origin, decide) => decide(null, origin !== undefined && allowedOrigins.has(origin)),
    methods: ["GET", "POST", "DELETE"],
    allowedHeaders: REQUEST_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
