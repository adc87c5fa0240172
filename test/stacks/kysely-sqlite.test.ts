import { notesOnSqlite } from "../helpers/notesExampleSuites.ts";

await notesOnSqlite({
  name: "kysely",
  library: "Kysely",
  handle: "Kysely's SqliteDialect on the better-sqlite3 handle livecmd was given",
});
