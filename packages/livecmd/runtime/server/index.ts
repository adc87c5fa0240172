export { createServerFactory } from "./methods/createServerFactory.ts";
export { serveStdio, type ServeStdioOptions, type StdioServing } from "./stdio/serveStdio.ts";
export {
  mcpHandler,
  type FetchOptions,
  type McpHandler,
  type McpHandlerOptions,
  type NodeHandler,
  type Readiness,
  type RemoteAddress,
} from "./http/mcpHandler.ts";
export {
  serveHttp,
  MCP_PATH,
  HTTP_TIMEOUTS,
  type HttpServing,
  type ServeHttpOptions,
} from "./http/serveHttp.ts";
export type { HttpAuth } from "./auth/httpAuth.ts";
export { staticTokens, type StaticTokens } from "./auth/staticTokens.ts";
export { jwtBearer, type JwtBearerOptions } from "./auth/jwtBearer.ts";
export { RATE_LIMITED } from "./errors/protocolErrors.ts";
export { DEFAULT_PAGE_SIZE } from "./methods/pagination.ts";
export { DEFAULT_CONFIRM_TIMEOUT_MS } from "./policy/confirmTimeout.ts";
export { type LiveStatus, type ServeOptions } from "./served/servedApp.ts";
export { StaleCatalogError } from "./policy/catalogDrift.ts";
export { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from "../live/limitDefaults.ts";
export { serverLog, MAX_LOG_MESSAGE, type ServerLog } from "./log/serverLog.ts";
export { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";
export { LOG_FORMATS, DEFAULT_LOG_FORMAT, type LogFormat } from "./log/logFormat.ts";
