export {
  command,
  isCommand,
  type Command,
  type CommandOptions,
  type Handler,
  type RateLimit,
} from "./command.ts";
export { int, type Int } from "./uri/int.ts";
export { InvalidArguments } from "./validation/invalidArguments.ts";
export { ResultMismatch } from "./validation/resultMismatch.ts";
export { Origin, type Context } from "./context.ts";
export {
  App,
  defineApp,
  type AppDefinition,
  type ChangeListener,
  type Completer,
  type Invocation,
  type Middleware,
  type RunOptions,
} from "./app.ts";
export { SqliteDatabase, type Database, type SqlParam, type TableObserver } from "./db/database.ts";
export type { SqliteConnection, SqliteStatement } from "./db/sqliteConnection.ts";
export { defineConfig, type LivecmdConfig } from "./config.ts";
export type {
  ArgumentShape,
  Catalog,
  CommandEntry,
  Generated,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from "./catalog.ts";
export type {
  CommandTemplate,
  FieldError,
  JsonSchema,
  ParseResult,
  TemplateVariable,
} from "./uri/template.ts";
