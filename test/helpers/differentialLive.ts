import assert from "node:assert/strict";
import fc from "fast-check";
import { command, type App } from "../../packages/livecmd/runtime/index.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import type { Subscriber } from "../../packages/livecmd/runtime/live/watchGroups.ts";
import type { Matching } from "../../packages/livecmd/runtime/live/readSet.ts";

/**
 * What the differential live tests share (test/unit/live-rows.test.ts on SQLite,
 * test/postgres/live-rows.test.ts): random reads watched under row and under table matching, and
 * random writes, one statement or a transaction of a few, rolled back or not.
 */
export type Statement = [index: number, params: unknown[]];

/** Statements written in one transaction, rolled back or not; by another connection when `elsewhere`. */
export interface WriteBatch {
  statements: Statement[];
  rollback: boolean;
  elsewhere?: boolean;
}

export function writeBatches(
  statement: fc.Arbitrary<Statement>,
  { elsewhere = false } = {},
): fc.Arbitrary<WriteBatch> {
  const batch = fc.oneof(
    statement.map((one) => ({ statements: [one], rollback: false })),
    fc
      .tuple(fc.array(statement, { minLength: 2, maxLength: 3 }), fc.boolean())
      .map(([statements, rollback]) => ({ statements, rollback })),
  );
  return elsewhere
    ? fc.tuple(batch, fc.boolean()).map(([each, other]) => ({ ...each, elsewhere: other }))
    : batch;
}

/**
 * What a property can hold both registries to besides each other: each watched read's own
 * result, read apart from the app before and after every write (a read whose result changed is
 * owed one notification), and writes made by another connection to the database.
 */
export interface Oracle {
  results(): Promise<string[]> | string[];
  writeElsewhere(batch: WriteBatch): Promise<void> | void;
}

/** Subscription arguments are JSON, as they are over MCP: a bigint parameter travels as `"<n>n"`. */
const asArgument = (param: unknown) => (typeof param === "bigint" ? `${param}n` : param);
const asParam = (arg: unknown) =>
  typeof arg === "string" && /^\d+n$/.test(arg) ? BigInt(arg.slice(0, -1)) : arg;

/** The live command `query(i, params)`: runs `reads[i]` with `params`. */
export function queryCommand(reads: readonly (readonly [string, ...unknown[]])[]) {
  return command({ live: true }, async (ctx, i: number, args: unknown[]) =>
    ctx.db.all(reads[i]![0], ...(args.map(asParam) as never[])),
  );
}

/**
 * The live command `query(i, params)` of an app that reads through a library: runs
 * `readers[i](...params)` (Drizzle, Kysely or the app's SQL on its own handle).
 */
export function readerCommand(readers: readonly ((...params: never[]) => unknown)[]) {
  return command({ live: true }, async (_ctx, i: number, args: unknown[]) =>
    readers[i]!(...(args.map(asParam) as never[])),
  );
}

/** A registry's subscriptions to `query` of each of `reads`, and the notifications each got. */
export async function watch(app: App, matching: Matching, reads: readonly Statement[]) {
  const live = new LiveRegistry(app, { matching, onError: () => {} });
  const received: string[] = [];
  const uris: string[] = [];
  for (const [i, params] of reads) {
    const args = params.map(asArgument);
    const subscriber: Subscriber = {
      uri: `q://${i}/${JSON.stringify(args)}`,
      notify: (sent) => received.push(sent),
    };
    uris.push(subscriber.uri);
    await live.add("query", [i, args], subscriber);
  }
  return { live, received, uris };
}

type Watched = Awaited<ReturnType<typeof watch>>;

/**
 * Runs each batch of `writes` (`sqls[i]` with its parameters through `ctx.db`, or through
 * `writeInApp` when given; a statement that fails is rolled back to a savepoint, as an app that
 * catches it would), and after each, once both registries have settled, checks that they
 * notified the same URIs, and with an `oracle` that row matching notified exactly the reads
 * whose results changed.
 */
export async function writeAndCompare<Batch extends WriteBatch>(
  app: App,
  sqls: readonly (readonly [string, ...unknown[]])[],
  writes: readonly Batch[],
  rows: Watched,
  tables: Watched,
  oracle?: Oracle,
  writeInApp: (batch: Batch) => Promise<void> | void = (batch) => writeThroughApp(app, sqls, batch),
): Promise<void> {
  const owed: string[] = [];
  for (const batch of writes) {
    const before = await oracle?.results();
    if (batch.elsewhere && oracle) await oracle.writeElsewhere(batch);
    else await writeInApp(batch);
    await app.db.caughtUp();
    await rows.live.settled();
    await tables.live.settled();
    assert.deepEqual(rows.received.sort(), tables.received.sort());
    if (!before) continue;
    const after = await oracle!.results();
    rows.uris.forEach((uri, n) => before[n] !== after[n] && owed.push(uri));
    assert.deepEqual(rows.received, owed.sort(), "row matching notifies each changed read once");
  }
  assert.ok(rows.live.stats().reruns <= tables.live.stats().reruns);
}

/** The re-runs each matching made, summed over a property's runs: row matching must make fewer. */
export interface Reruns {
  rows: number;
  tables: number;
}

/**
 * Watches `reads` under row and under table matching, holds them to each other (and to `oracle`)
 * through `writes` with writeAndCompare, and adds each registry's re-runs to `reruns`.
 */
export async function compareMatchings(
  app: App,
  sqls: readonly (readonly [string, ...unknown[]])[],
  reads: readonly Statement[],
  writes: readonly WriteBatch[],
  reruns: Reruns,
  oracle?: Oracle,
): Promise<void> {
  const rows = await watch(app, "rows", reads);
  const tables = await watch(app, "tables", reads);
  try {
    await writeAndCompare(app, sqls, writes, rows, tables, oracle);
    reruns.rows += rows.live.stats().reruns;
    reruns.tables += tables.live.stats().reruns;
  } finally {
    rows.live.close();
    tables.live.close();
  }
}

/** Writes `batch` through the app's `ctx.db` (`app.db`), in a transaction with a savepoint per statement. */
export async function writeThroughApp(
  app: App,
  sqls: readonly (readonly [string, ...unknown[]])[],
  { statements, rollback }: WriteBatch,
): Promise<void> {
  await app.db
    .transaction(async () => {
      for (const [i, params] of statements)
        await app.db
          .transaction(() => app.db.run(sqls[i]![0], ...(params as never[])))
          .catch(() => {});
      if (rollback) throw new Error("rolled back");
    })
    .catch(() => {});
}
