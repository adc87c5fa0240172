export { createServerFactory } from "./createServerFactory.ts";
export { serveStdio, type ServeStdioOptions, type StdioServing } from "./serveStdio.ts";
export {
  mcpHandler,
  type FetchOptions,
  type McpHandler,
  type McpHandlerOptions,
  type NodeHandler,
  type Readiness,
  type RemoteAddress,
} from "./mcpHandler.ts";
export {
  serveHttp,
  MCP_PATH,
  HTTP_TIMEOUTS,
  type HttpServing,
  type ServeHttpOptions,
} from "./serveHttp.ts";
export type { HttpAuth } from "./auth/httpAuth.ts";
export { staticTokens, type StaticTokens } from "./auth/staticTokens.ts";
export { jwtBearer, type JwtBearerOptions } from "./auth/jwtBearer.ts";
export { RATE_LIMITED } from "./protocolErrors.ts";
export { DEFAULT_PAGE_SIZE } from "./pagination.ts";
export { DEFAULT_CONFIRM_TIMEOUT_MS } from "./confirmTimeout.ts";
export { type LiveStatus, type ServeOptions } from "./servedApp.ts";
export { StaleCatalogError } from "./catalogDrift.ts";
export { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from "../live/limitDefaults.ts";
export { serverLog, MAX_LOG_MESSAGE, type ServerLog } from "./serverLog.ts";
export { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";
export { LOG_FORMATS, DEFAULT_LOG_FORMAT, type LogFormat } from "./logFormat.ts";
