/**
 * A serving process's live half, as a child of the bus bench: the example app on `$DATABASE_URL`
 * (on the bus at `$LIVECMD_BUS` when set, else hearing today's NOTIFY feed), its registry
 * watching customers_show/`$FIRST`..`$FIRST + $COUNT - 1` (none when `$COUNT` is 0: a process
 * that only relays). Prints `ready` once every watch has run, then `told <id> <balance> <at>` per
 * notification (the balance its re-run read; `at`: wall-clock ms), or `failed <id>` when the
 * re-run threw. Answers `heard` with `heard <changes to customers> <changes to every table>`, the
 * changes the database told this process of, and `cpu` (`childControl.ts`); the end of stdin
 * stops it.
 */
import { createExampleApp } from "../../example/app.ts";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
import { FAILED } from "../../packages/livecmd/runtime/live/lastResult.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { wallClock } from "../lib/pgWatchers.ts";
import { controlledByStdin } from "./childControl.ts";

const first = Number(process.env.FIRST);
const count = Number(process.env.COUNT);
const app = createExampleApp();
let customers = 0;
let everyTable = 0;
engineOf(app).onChange((changes) => {
  for (const { table } of changes) {
    if (table === "customers") customers += 1;
    else if (table === ANY_TABLE) everyTable += 1;
  }
});
// Opens the database, and with it the change feed and the relay, whether it watches or not.
await app.db.get("SELECT 1");
const registry = new LiveRegistry(app);
for (let id = first; id < first + count; id++)
  await registry.add("customers_show", [id], {
    uri: `app://customers_show/${id}`,
    notify() {
      const at = wallClock();
      const { text } = registry.resultOf("customers_show", [id])!;
      if (text === FAILED) return void process.stdout.write(`failed ${id}\n`);
      const { balance } = JSON.parse(text) as { balance: number };
      process.stdout.write(`told ${id} ${balance} ${at}\n`);
    },
  });
await registry.settled();
process.stdout.write("ready\n");

controlledByStdin(
  () => {
    registry.close();
    // Re-runs still under way finish before the pool ends: they would fail on it.
    void registry
      .settled()
      .then(() => app.close())
      .then(() => process.exit(0));
  },
  { heard: () => `${customers} ${everyTable}` },
);
