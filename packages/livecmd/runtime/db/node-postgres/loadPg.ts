import { createRequire } from "node:module";
import type { PgModule } from "../postgres/pgLibrary.ts";

/**
 * node-postgres, loaded on demand: it is an optional peer dependency, so an app on SQLite needs
 * none. Required (pg is CommonJS) from livecmd's own folder, where npm puts the app's peers.
 */
export function loadPg(): PgModule {
  try {
    return createRequire(import.meta.url)("pg") as PgModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    throw new Error("livecmd: postgres() needs node-postgres; install it: npm install pg@^8");
  }
}
