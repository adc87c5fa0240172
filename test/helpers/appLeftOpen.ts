import { defineApp } from "../../packages/livecmd/runtime/index.ts";
import { postgres } from "../../packages/livecmd/runtime/db/node-postgres/postgres.ts";

/**
 * A script that uses an app on `DATABASE_URL` and ends without closing it, as a seed script or
 * a test file may: a write, every change caught up (in the logical mode, through the relay, so
 * it streams), then nothing more. Its process must end on its own.
 */
const app = defineApp({
  name: "left-open",
  commands: {},
  agent: { grant: [] },
  database: postgres(process.env.DATABASE_URL!),
});
await app.db.run("CREATE TABLE IF NOT EXISTS marks (id serial PRIMARY KEY)");
await app.db.run("INSERT INTO marks DEFAULT VALUES");
await app.db.caughtUp();
process.stdout.write("caught up\n");
