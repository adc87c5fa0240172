/**
 * A serving process's change capture, as a child of the capture bench, built as `openPostgres.ts`
 * builds it: a `ChangeListener` on `$DATABASE_URL`'s change feed and, when `$CAPTURE` is
 * `logical`, a `LogicalRelay` that takes its turn at streaming the slot. Prints `ready` once
 * listening, `relaying <at>` when it starts streaming, `pulse <id> <at>` for each row of
 * `bench_pulse` a notification names, and `log <line>` for what livecmd logs; answers a `count`
 * line on stdin with `count <n>`, the notifications of `bench_rows` heard so far. The end of
 * stdin stops it; the bench SIGKILLs it to take its relay away.
 */
import pg from "pg";
import { ChangeListener } from "../../packages/livecmd/runtime/db/postgres/changes/changeListener.ts";
import { LogicalRelay } from "../../packages/livecmd/runtime/db/postgres/changes/logicalRelay.ts";
import { walStreamOf } from "../../packages/livecmd/runtime/db/node-postgres/walStream.ts";
import type { TableChange } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import type { PgPool } from "../../packages/livecmd/runtime/db/postgres/pgLibrary.ts";
import { wallClock } from "../lib/pgWatchers.ts";
import { controlledByStdin } from "./childControl.ts";

const url = process.env.DATABASE_URL!;
const pool = new pg.Pool({ connectionString: url, application_name: "livecmd" }) as PgPool;
const log = (line: string) => process.stdout.write(`log ${line.replaceAll("\n", " ")}\n`);
let counted = 0;

function heard(changes: readonly TableChange[]): void {
  const at = wallClock();
  for (const { table, rows } of changes) {
    if (table === "bench_rows") counted += 1;
    if (table !== "bench_pulse" || !rows) continue;
    for (const id of new Set(rows.map((row) => row.id)))
      process.stdout.write(`pulse ${id} ${at}\n`);
  }
}

const listener = new ChangeListener(() => pool, heard, log);
await listener.start();
const relay =
  process.env.CAPTURE === "logical"
    ? new LogicalRelay(() => pool, walStreamOf({ connectionString: url }), log)
    : undefined;
relay?.start();
// The relay says nothing when it takes the slot: asked often, so the bench knows who relays.
const watching = setInterval(() => {
  if (!relay?.relaying) return;
  process.stdout.write(`relaying ${wallClock()}\n`);
  clearInterval(watching);
}, 10);
process.stdout.write("ready\n");

controlledByStdin(
  () => {
    clearInterval(watching);
    void (async () => {
      await relay?.close();
      await listener.close();
      await pool.end();
      process.exit(0);
    })();
  },
  { count: () => String(counted) },
);
