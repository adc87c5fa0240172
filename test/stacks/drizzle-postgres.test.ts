import { notesOnPostgres } from "../helpers/notesExampleSuites.ts";

await notesOnPostgres({
  name: "drizzle",
  library: "Drizzle",
  handle: "Drizzle (drizzle-orm/node-postgres) on the pg.Pool livecmd was given",
});
