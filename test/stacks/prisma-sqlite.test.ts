import { notesOnSqlite } from "../helpers/notesExampleSuites.ts";

await notesOnSqlite({
  name: "prisma",
  library: "Prisma",
  handle: "Prisma 7 through @prisma/adapter-better-sqlite3, its connection shared with livecmd",
});
