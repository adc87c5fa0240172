import { notesOnSqlite } from "../helpers/notesExampleSuites.ts";

await notesOnSqlite({
  name: "drizzle",
  library: "Drizzle",
  handle: "Drizzle (drizzle-orm/better-sqlite3) on the better-sqlite3 handle livecmd was given",
});
