export {
  command,
  isCommand,
  type Command,
  type CommandAnnotations,
  type CommandOptions,
  type Handler,
  type RateLimit,
} from "./model/command.ts";
export { int, type Int } from "./uri/int.ts";
export { InvalidArguments } from "./validation/invalidArguments.ts";
export { ResultMismatch } from "./validation/resultMismatch.ts";
export { Origin, type Context } from "./model/context.ts";
export {
  App,
  defineApp,
  type AppDefinition,
  type ChangeListener,
  type Completer,
  type Invocation,
  type Middleware,
  type RunOptions,
} from "./model/app.ts";
export type { AppDatabase, Database, RunResult, SqlParam, TableObserver } from "./db/database.ts";
export { SqliteDatabase } from "./db/sqlite/sqliteDatabase.ts";
export type { DatabaseSource } from "./db/open/openDatabase.ts";
export {
  postgres,
  type PostgresOptions,
  type PostgresSource,
} from "./db/node-postgres/postgres.ts";
export type { PostgresDatabase } from "./db/postgres/postgresDatabase.ts";
export type { PgPool } from "./db/postgres/pgLibrary.ts";
export { prisma, type PrismaAdapterFactory } from "./db/prisma/prismaBetterSqlite3.ts";
export type { SqliteConnection, SqliteStatement } from "./db/sqlite/sqliteConnection.ts";
export { defineConfig, type LivecmdConfig } from "./model/config.ts";
export type {
  ArgumentShape,
  Catalog,
  CommandEntry,
  Generated,
  ResourceEntry,
  ToolAnnotations,
  ResourceTemplateEntry,
  ToolEntry,
} from "./model/catalog.ts";
export type {
  CommandTemplate,
  FieldError,
  JsonSchema,
  ParseResult,
  TemplateVariable,
} from "./uri/template.ts";
