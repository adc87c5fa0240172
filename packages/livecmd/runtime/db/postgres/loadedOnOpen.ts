/**
 * What a PostgreSQL database runs once opened, loaded then (`PostgresConnection.loaded`): the
 * planner of each statement's reads and their check, and the change feed with its listener.
 * Every app imports `postgres` from livecmd, one on SQLite too, and a host waits on every module
 * a `livecmd serve` start loads: these are most of the PostgreSQL code, and none of it is used
 * before a statement or the change feed is.
 */
export { reportReads, tellReads, tellReadsAtOnce } from "./plan/boundReads.ts";
export { ChangeListener } from "./changes/changeListener.ts";
export { unknownFunctions } from "./plan/functionReads.ts";
export {
  captureLine,
  hasEventTriggers,
  installCapture,
  WITHOUT_EVENT_TRIGGERS,
} from "./changes/installChangeFeed.ts";
export { LogicalRelay, RELAY_RETRY_MS } from "./changes/logicalRelay.ts";
export { connectBus } from "./bus/busConnection.ts";
export { BusListener } from "./bus/busListener.ts";
export { keepsWalWithoutLimit, UNLIMITED_KEEP } from "./changes/captureStatus.ts";
export { pageReads } from "./plan/pageReads.ts";
export { explainStatement } from "./plan/planTables.ts";
export { activityOf, unaccounted } from "./plan/readsCheck.ts";
