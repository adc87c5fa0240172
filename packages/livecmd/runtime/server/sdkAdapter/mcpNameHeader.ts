import type { ProtocolError } from "@modelcontextprotocol/server";
import { headerMismatch } from "../errors/frontDoorErrors.ts";

/**
 * The body field each 2026-07-28 method's `Mcp-Name` header mirrors (SEP-2243, and SEP-2663 for
 * tasks), as the SDK's ladder reads it.
 */
const MCP_NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const BASE64_SENTINEL =
  /^=\?base64\?((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)\?=$/;

/**
 * The SDK's `Mcp-Name` check of a 2026-07-28 request, made first so that its answer quotes the
 * body cut: the -32020 for a header that is absent or names something else, or undefined when
 * the SDK would pass it (or refuse it for another reason).
 */
export function mcpNameMismatch(request: Request, message: unknown): ProtocolError | undefined {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: unknown };
  if (typeof method !== "string" || !Object.hasOwn(MCP_NAME_SOURCE, method)) return undefined;
  const field = MCP_NAME_SOURCE[method]!;
  const value =
    typeof params === "object" && params !== null
      ? (params as Record<string, unknown>)[field]
      : undefined;
  if (typeof value !== "string") return undefined;
  const header = request.headers.get("mcp-name")?.trim();
  if (header === undefined) return headerMismatch(field, value, undefined);
  const decoded = decoded64(header);
  // An invalid sentinel is the SDK's to refuse: its answer quotes only the header, which Node bounds.
  if (decoded === undefined || decoded === value) return undefined;
  return headerMismatch(field, value, decoded);
}

/** The header's value, its `=?base64?…?=` sentinel decoded; undefined for an invalid sentinel. */
function decoded64(header: string): string | undefined {
  if (!header.startsWith("=?base64?")) return header;
  const base64 = BASE64_SENTINEL.exec(header)?.[1];
  return base64 === undefined ? undefined : Buffer.from(base64, "base64").toString("utf8");
}
