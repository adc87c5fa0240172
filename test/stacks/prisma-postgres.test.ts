import { notesOnPostgres } from "../helpers/notesExampleSuites.ts";

await notesOnPostgres({
  name: "prisma",
  library: "Prisma",
  handle: "Prisma 7 through @prisma/adapter-pg on the pg.Pool livecmd was given",
});
