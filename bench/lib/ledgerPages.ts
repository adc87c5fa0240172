import {
  command,
  defineApp,
  type App,
  type DatabaseSource,
} from "../../packages/livecmd/runtime/index.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import type { Matching } from "../../packages/livecmd/runtime/live/readSet.ts";

/**
 * Issue 34's pages, the same on SQLite (bench/rows.bench.ts) and PostgreSQL
 * (bench/postgresRows.bench.ts), over a ledger of amounts 1..20 x pages, indexed by amount, that
 * each bench seeds in its database's own SQL.
 */

const ledgerPage = command({ live: true }, async (ctx, from: number) =>
  ctx.db.all("SELECT id, amount FROM ledger WHERE amount >= ? ORDER BY amount LIMIT 10", from),
);
const ledgerRecord = command({}, async (ctx, id: number, amount: number) =>
  ctx.db.run("INSERT INTO ledger VALUES (?, ?)", id, amount),
);

export interface Pages {
  reruns: number[];
  /** From the insert to every re-run it caused done (ms): on PostgreSQL the change feed's notification included. */
  settledMs: number[];
}

/** The ledger app on a seeded `database`. */
export function ledgerApp(database: DatabaseSource): App {
  return defineApp({
    name: "ledger",
    commands: { ledgerPage, ledgerRecord },
    agent: { grant: [ledgerPage, ledgerRecord] },
    database,
  });
}

/**
 * Under each matching, `pages` watched pages, page n the 10 smallest amounts from 10n on, and
 * `writes[matching]` inserts (each deleted after, unmeasured) of an amount past every page's last row.
 */
export async function pageFigures(
  app: App,
  pages: number,
  writes: Record<Matching, number>,
  log: (matching: Matching) => void,
): Promise<Record<Matching, Pages>> {
  const figures = {} as Record<Matching, Pages>;
  for (const matching of ["rows", "tables"] as const) {
    log(matching);
    const live = new LiveRegistry(app, { matching, onError: () => {} });
    for (let n = 1; n <= pages; n += 1)
      await live.add("ledgerPage", [n * 10], { uri: `ledger://page/${n}`, notify: () => {} });
    const settled = async () => {
      await app.db.caughtUp();
      await live.settled();
    };
    const reruns: number[] = [];
    const settledMs: number[] = [];
    for (let k = 0; k < writes[matching]; k += 1) {
      const id = pages * 20 + 1 + k;
      const before = live.stats().reruns;
      const started = performance.now();
      await app.run("ledgerRecord", [id, pages * 1000], { origin: Origin.App });
      await settled();
      settledMs.push(performance.now() - started);
      reruns.push(live.stats().reruns - before);
      await app.db.run("DELETE FROM ledger WHERE id = ?", id);
      await settled();
    }
    live.close();
    figures[matching] = { reruns, settledMs };
  }
  return figures;
}
