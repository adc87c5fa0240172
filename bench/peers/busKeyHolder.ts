/**
 * A process holding key routes through livecmd's `BusListener`, as a child of the bus bench
 * (run with --expose-gc): connected to the bus at `$LIVECMD_BUS` for the database at
 * `$DATABASE_URL`, started as a serving process starts it; prints `ready` then. Answers
 * `add <n>` with `add <held>` once `n` more values of customers.id are routed to it (the
 * subscriptions flushed to the server), and `memory` with `memory <heap used> <rss>` in bytes
 * after a full collection; the end of stdin stops it.
 */
import pg from "pg";
import { connectBus } from "../../packages/livecmd/runtime/db/postgres/bus/busConnection.ts";
import { BusListener } from "../../packages/livecmd/runtime/db/postgres/bus/busListener.ts";
import type { PgPool } from "../../packages/livecmd/runtime/db/postgres/pgLibrary.ts";
import { controlledByStdin } from "./childControl.ts";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL }) as PgPool;
const bus = await connectBus(process.env.LIVECMD_BUS!, pool);
const log = (line: string) => process.stderr.write(`${line}\n`);
const listener = new BusListener(
  bus,
  () => pool,
  () => {},
  log,
);
await listener.start();
process.stdout.write("ready\n");
let held = 0;

/** Values never held before, so that each is a route of its own. */
function nextValues(count: number): Set<string> {
  const values = new Set<string>();
  for (let k = 0; k < count; k++) values.add(String((held += 1)));
  return values;
}

controlledByStdin(
  () => {
    void (async () => {
      await listener.close();
      await bus.nats.close();
      await pool.end();
      process.exit(0);
    })();
  },
  {
    async add([count]) {
      const keyed = new Map([["customers", new Map([["id", nextValues(Number(count))]])]]);
      listener.add({ whole: new Set(), filtered: new Map(), keyed });
      await bus.nats.flush();
      return String(held);
    },
    memory() {
      // Twice: what the first collection finalizes, the second frees.
      globalThis.gc!();
      globalThis.gc!();
      const { heapUsed, rss } = process.memoryUsage();
      return `${heapUsed} ${rss}`;
    },
  },
);
