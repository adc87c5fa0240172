/**
 * A serve process's live half, as a child of the PostgreSQL bench: the example app on
 * `$DATABASE_URL` watching customers_show/1..`$WATCHED`, matching changes by `$MATCHING` (rows,
 * the default, or tables). Prints `ready`, then `told <uri> <at>`
 * per notification (`at`: wall-clock ms); answers a `reruns` line on stdin with `reruns <n>`;
 * the end of stdin stops it.
 */
import { createExampleApp } from "../../example/app.ts";
import { watchCustomers } from "../lib/pgWatchers.ts";

const app = createExampleApp();
const registry = await watchCustomers(
  app,
  Number(process.env.WATCHED),
  (uri, at) => process.stdout.write(`told ${uri} ${at}\n`),
  process.env.MATCHING === "tables" ? "tables" : "rows",
);
process.stdout.write("ready\n");
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  const lines = (pending + chunk).split("\n");
  pending = lines.pop()!;
  for (const line of lines)
    if (line.trim() === "reruns") process.stdout.write(`reruns ${registry.stats().reruns}\n`);
});
process.stdin.on("end", () => {
  registry.close();
  void app.close().then(() => process.exit(0));
});
