/**
 * A serving process's live half, as a child of the bus bench: the example app on `$DATABASE_URL`
 * (on the bus at `$LIVECMD_BUS` when set, else hearing today's NOTIFY feed), its registry
 * watching customers_show/`$FIRST`..`$FIRST + $COUNT - 1`. Prints `ready` once every watch has
 * run, then `told <id> <balance> <at>` per notification (the balance its re-run read; `at`:
 * wall-clock ms). Answers `heard` with `heard <changes to customers> <changes to every table>`,
 * the changes the database told this process of, and `cpu` (`childControl.ts`); the end of stdin
 * stops it.
 */
import { createExampleApp } from "../../example/app.ts";
import { ANY_TABLE } from "../../packages/livecmd/runtime/db/anyTable.ts";
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
const registry = new LiveRegistry(app);
for (let id = first; id < first + count; id++)
  await registry.add("customers_show", [id], {
    uri: `app://customers_show/${id}`,
    notify() {
      const at = wallClock();
      const { balance } = JSON.parse(registry.resultOf("customers_show", [id])!.text) as {
        balance: number;
      };
      process.stdout.write(`told ${id} ${balance} ${at}\n`);
    },
  });
await registry.settled();
process.stdout.write("ready\n");

controlledByStdin(
  () => {
    registry.close();
    void app.close().then(() => process.exit(0));
  },
  { heard: () => `${customers} ${everyTable}` },
);
