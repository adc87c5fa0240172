/**
 * livecmd/internal: what the CLI and the generator use of the runtime beyond its public entry
 * points. They reach the runtime only through package entries, so they can ship in a package of
 * their own; an app has no use for anything here, and it may change in any release.
 */
import type { App } from "./model/app.ts";
import type { ReadInspector } from "./server/methods/readInspector.ts";

export { engineOf } from "./model/attachedEngine.ts";
export {
  annotationsOf,
  CATALOG_VERSION,
  isReadable,
  listings,
  type ArgumentShape,
  type Catalog,
  type CommandEntry,
  type ToolAnnotations,
  type ToolEntry,
} from "./model/catalog.ts";
export {
  DEFAULT_WATCH_TOOL,
  MAX_WATCH_WAIT_MS,
  watchToolEntry,
  watchToolNameProblem,
} from "./model/watchTool.ts";
export { VERSION_META_KEY } from "./model/resultMeta.ts";
export { isViewListing, viewUri } from "./model/viewResource.ts";
export { isSetupError } from "./db/setupError.ts";
export { packageVersionNear } from "./server/served/packageVersion.ts";
export { isStruct, toolArguments } from "./model/commandArguments.ts";
export { byCodeUnit } from "./text/byCodeUnit.ts";
export { descriptionExamples } from "./text/descriptionExamples.ts";
export type { JsonSchema, TemplateVariable } from "./uri/template.ts";
export { isJsonNumberSyntax } from "./uri/scalarSyntax.ts";
export { isPlainConstant } from "./uri/uriCursor.ts";
export { percentEncode } from "./uri/percentEncode.ts";
export { argumentValidator } from "./validation/argumentValidator.ts";
export { ANY_TABLE } from "./db/anyTable.ts";
export type { TableRead } from "./db/keyedAccess.ts";
export { sqliteDriverProblem } from "./db/better-sqlite3/versionProblem.ts";
export { missingBinaryProblem } from "./db/better-sqlite3/missingBinary.ts";
export { missingNodeSqliteProblem } from "./db/node-sqlite/missingBuiltin.ts";
export { NO_DATABASE, ReadSet, UNSEEN_FIX } from "./live/readSet.ts";
export { keyValueText } from "./live/rerunCause.ts";
export { wholeReasonText } from "./db/wholeReason.ts";
export { DEFAULT_SUBSCRIPTION_LIMITS, FAIR_SHARES } from "./live/limitDefaults.ts";
export { DEFAULT_PAGE_SIZE } from "./server/served/defaultPageSize.ts";
export { DEFAULT_HOST, DEFAULT_SESSION_IDLE_MS } from "./server/http/httpDefaults.ts";
export { DEFAULT_CONFIRM_TIMEOUT_MS } from "./server/policy/confirmTimeout.ts";
export { DEFAULT_LOG_FORMAT, LOG_FORMATS, type LogFormat } from "./server/log/logFormat.ts";
export type { ReadInspector } from "./server/methods/readInspector.ts";

/**
 * A `ReadInspector` of `app`, for `livecmd inspect --reads`. Loaded on the call: the server's
 * modules load the MCP SDK, and every CLI command imports this entry, `codegen` included.
 */
export async function readInspector(app: App): Promise<ReadInspector> {
  const { ReadInspector } = await import("./server/methods/readInspector.ts");
  return new ReadInspector(app);
}

/**
 * What `livecmd serve` needs over stdio, loaded on the call: the stdio server and the log,
 * without livecmd/server's HTTP modules (and the SDK's Node and Hono adapters they load).
 */
export async function stdioServing() {
  const [{ serveStdio }, { serverLog }] = await Promise.all([
    import("./server/stdio/serveStdio.ts"),
    import("./server/log/serverLog.ts"),
  ]);
  return { serveStdio, serverLog };
}

/**
 * What `livecmd db install`, `status` and `uninstall` need of PostgreSQL, loaded on the call:
 * the connection checks and the change feed's SQL, which no other command reads.
 */
export async function postgresInstall() {
  const [connection, { loadPg }, { firstConnection }, changeFeed, status, uninstall] =
    await Promise.all([
      import("./db/postgres/connectionProblem.ts"),
      import("./db/node-postgres/loadPg.ts"),
      import("./db/postgres/firstConnection.ts"),
      import("./db/postgres/changes/installChangeFeed.ts"),
      import("./db/postgres/changes/captureStatus.ts"),
      import("./db/postgres/changes/uninstallCapture.ts"),
    ]);
  const { redacted, urlProblem } = connection;
  const { captureLine, hasEventTriggers, installCapture, WITHOUT_EVENT_TRIGGERS } = changeFeed;
  return {
    redacted,
    urlProblem,
    loadPg,
    firstConnection,
    captureLine,
    hasEventTriggers,
    installCapture,
    WITHOUT_EVENT_TRIGGERS,
    captureStatus: status.captureStatus,
    statusWarnings: status.statusWarnings,
    bytesText: status.bytesText,
    uninstallCapture: uninstall.uninstallCapture,
  };
}
