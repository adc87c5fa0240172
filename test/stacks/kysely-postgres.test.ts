import { notesOnPostgres } from "../helpers/notesExampleSuites.ts";

await notesOnPostgres({
  name: "kysely",
  library: "Kysely",
  handle: "Kysely's PostgresDialect on the pg.Pool livecmd was given",
});
