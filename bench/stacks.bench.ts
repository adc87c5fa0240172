/**
 * Issue 32: reads through the app's own data layer. Per read, Drizzle and Kysely on the
 * better-sqlite3 handle livecmd was given (observed), against the same libraries on a connection
 * livecmd was never given (the overhead of observing them), and against the same statement
 * through `ctx.db`; and row-level re-runs per write among 10,000 tickets watched through each.
 *
 *   npx tsx bench/stacks.bench.ts        # prints this row alone, writes nothing
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Kysely, SqliteDialect } from "kysely";
import { command, defineApp, type App } from "../packages/livecmd/runtime/index.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import { engineOf } from "../packages/livecmd/runtime/model/attachedEngine.ts";
import { LiveRegistry } from "../packages/livecmd/runtime/live/liveRegistry.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";

const TICKETS = 10_000;
/** Reads per command run: the run's own cost (middleware, arguments) is spread thin over them. */
const READS_PER_RUN = 200;
const ROUNDS = 15;
const RUNS_PER_ROUND = 15;
const WRITES = 50;

const tickets = sqliteTable("tickets", {
  id: integer("id").primaryKey(),
  title: text("title"),
  assignee: text("assignee"),
});
interface Tables {
  tickets: { id: number; title: string | null; assignee: string | null };
}
const SQL = "SELECT id, title, assignee FROM tickets WHERE id = ?";

type Read = (id: number) => unknown;

/** One way of reading a ticket by id, on the handle given: `ctx.db`'s, Drizzle's built each time or prepared, Kysely's. */
function readers(handle: BetterSqlite3.Database) {
  const orm = drizzle(handle);
  const prepared = orm
    .select()
    .from(tickets)
    .where(eq(tickets.id, 0 as number))
    .prepare();
  const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: handle }) });
  return {
    drizzle: ((id) => orm.select().from(tickets).where(eq(tickets.id, id)).get()) as Read,
    "drizzle, prepared": ((id) => prepared.get({ id })) as Read,
    kysely: ((id) =>
      kysely.selectFrom("tickets").selectAll().where("id", "=", id).executeTakeFirst()) as Read,
  };
}

function seed(file: string): void {
  const db = new BetterSqlite3(file);
  db.exec("CREATE TABLE tickets (id INTEGER PRIMARY KEY, title TEXT, assignee TEXT)");
  const insert = db.prepare("INSERT INTO tickets VALUES (?, ?, NULL)");
  db.transaction(() => {
    for (let id = 1; id <= TICKETS; id++) insert.run(id, `ticket ${id}`);
  })();
  db.close();
}

/** The app: `read(kind, n)` reads n tickets through `kind`; `show(kind, id)` is watched. */
function stackApp(file: string) {
  const given = new BetterSqlite3(file);
  const other = new BetterSqlite3(file);
  const observed = readers(given);
  const unobserved = readers(other);
  const through = (kind: string): Read =>
    kind.endsWith(" (unobserved)")
      ? unobserved[kind.replace(" (unobserved)", "") as keyof typeof unobserved]
      : observed[kind as keyof typeof observed];
  const read = command({}, async (ctx, kind: string, n: number) => {
    let found = 0;
    for (let read = 1; read <= n; read++) {
      const id = ((read * 7919) % TICKETS) + 1;
      const row = kind === "ctx.db" ? await ctx.db.get(SQL, id) : await through(kind)(id);
      if (row) found += 1;
    }
    return found;
  });
  const show = command({ live: true }, async (_ctx, kind: string, id: number) => through(kind)(id));
  const app = defineApp({
    name: "stacks",
    commands: { read, show },
    agent: { grant: [read, show] },
    database: () => given,
  });
  return { app, given, other };
}

const KINDS = [
  "ctx.db",
  "drizzle",
  "drizzle (unobserved)",
  "drizzle, prepared",
  "drizzle, prepared (unobserved)",
  "kysely",
  "kysely (unobserved)",
] as const;

/**
 * Per read, in µs. Every kind runs once in each step of a round, a different one first each step,
 * so that a busy spell on the shared machine falls on all of them alike; a run is as a watched
 * re-run would be (an observer).
 */
async function perRead(app: App): Promise<Figure[]> {
  const engine = engineOf(app);
  const samples = new Map<string, number[]>(KINDS.map((kind) => [kind, []]));
  const rounds = new Map<string, number[]>(KINDS.map((kind) => [kind, []]));
  const observer = { read: () => {}, sawPrincipal: () => {} };
  const once = (kind: string) =>
    engine.run("read", [kind, READS_PER_RUN], { origin: Origin.Agent, observer });
  for (const kind of KINDS) for (let warm = 0; warm < 5; warm++) await once(kind);
  for (let round = 0; round < ROUNDS; round++) {
    const times = new Map<string, number[]>(KINDS.map((kind) => [kind, []]));
    for (let step = 0; step < RUNS_PER_ROUND; step++)
      for (let turn = 0; turn < KINDS.length; turn++) {
        const kind = KINDS[(step + turn) % KINDS.length]!;
        const started = performance.now();
        await once(kind);
        times.get(kind)!.push(((performance.now() - started) * 1000) / READS_PER_RUN);
      }
    for (const kind of KINDS) {
      samples.get(kind)!.push(...times.get(kind)!);
      rounds.get(kind)!.push(figureOf(kind, "µs", times.get(kind)!).median);
    }
  }
  return KINDS.map((kind) =>
    figureOf(`${kind}: a ticket by id`, "µs", samples.get(kind)!, rounds.get(kind)),
  );
}

/** Re-runs per write among 10,000 tickets watched through `kind`, each write through the library. */
async function rerunsPerWrite(
  app: App,
  handle: BetterSqlite3.Database,
  kind: string,
): Promise<number> {
  const live = new LiveRegistry(app, { onError: () => {} });
  for (let id = 1; id <= TICKETS; id++)
    await live.add("show", [kind, id], { uri: `t://${id}`, notify: () => {} });
  const orm = drizzle(handle);
  const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: handle }) });
  for (let write = 1; write <= WRITES; write++) {
    const id = ((write * 104729) % TICKETS) + 1;
    if (kind.startsWith("drizzle"))
      orm
        .update(tickets)
        .set({ assignee: `a${write}` })
        .where(eq(tickets.id, id))
        .run();
    else
      await kysely
        .updateTable("tickets")
        .set({ assignee: `a${write}` })
        .where("id", "=", id)
        .execute();
    await live.settled();
  }
  const reruns = live.stats().reruns;
  live.close();
  return reruns / WRITES;
}

export const stacksBench: BenchModule = {
  async run(context): Promise<Section> {
    const folder = mkdtempSync(path.join(tmpdir(), "livecmd-bench-stacks-"));
    const file = path.join(folder, "tickets.sqlite");
    seed(file);
    const { app, given, other } = stackApp(file);
    try {
      context.log("stacks: per read");
      const figures = await perRead(app);
      const byKind = (kind: string) => figures.find(({ label }) => label.startsWith(`${kind}:`))!;
      const comparisons: Comparison[] = [];
      for (const kind of ["drizzle", "drizzle, prepared", "kysely"])
        comparisons.push(
          ratio(
            `${kind}: observed / on a connection livecmd was never given`,
            byKind(kind),
            byKind(`${kind} (unobserved)`),
            { op: "<=", value: 1.1 },
          ),
        );
      for (const kind of ["drizzle", "drizzle, prepared", "kysely"])
        comparisons.push(
          ratio(`${kind} / ctx.db, the same statement`, byKind(kind), byKind("ctx.db")),
        );
      for (const kind of ["drizzle", "kysely"]) {
        context.log(`stacks: re-runs per write, ${kind}`);
        comparisons.push({
          label: `${kind}: re-runs per write, ${TICKETS} watched`,
          value: await rerunsPerWrite(app, given, kind),
          unit: "x",
          target: { op: "<=", value: 1 },
        });
      }
      return {
        title:
          "Your data layer: reads through Drizzle and Kysely on the app's own handle (issue 32)",
        method: [
          `A SQLite file of ${TICKETS} tickets; the app gives livecmd one better-sqlite3 connection (\`database: () => sqlite\`), and Drizzle (drizzle-orm/better-sqlite3, a query built per read, and one \`.prepare()\`d) and Kysely (SqliteDialect) read through it; the same libraries on a second connection livecmd was never given are the unobserved peers.`,
          `Per read: a command run (as a watched re-run: an observer, through the middleware) reads ${READS_PER_RUN} tickets by id; the time of the run over ${READS_PER_RUN}; ${ROUNDS} rounds of ${RUNS_PER_ROUND} steps, each step one run of every kind, a different kind first each step; ratios are the median of per-round ratios; ctx.db runs \`${SQL}\`.`,
          `Re-runs per write: ${TICKETS} tickets watched through the library on one LiveRegistry (row matching), ${WRITES} assignments of one ticket each through the same library, awaited one by one.`,
        ],
        figures,
        comparisons,
        notes: [
          "The target is on what observing costs (observed / unobserved through the same library). A library against ctx.db is the library's own cost of building a query and mapping its rows, shown for context.",
          "better-sqlite3 is observed through its statement class, once per process: the unobserved peer's statements pass the check that they are not on a connection livecmd was given (one WeakMap lookup a run), as every other connection of an app using livecmd does.",
        ],
      };
    } finally {
      await app.close();
      other.close();
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await runAlone(stacksBench);
