import { createExampleApp } from "../../example/app.ts";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";

/**
 * `count` example apps on the PostgreSQL database at `databaseUrl`: `createExampleApp` reads
 * `DATABASE_URL` when it makes an app, so it is set for that moment and put back.
 */
export function exampleAppsOn(databaseUrl: string, count: number): App[] {
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = databaseUrl;
  try {
    return Array.from({ length: count }, () => createExampleApp());
  } finally {
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
  }
}
