import assert from "node:assert/strict";
import fc from "fast-check";
import { command, type App } from "../../runtime/index.ts";
import { LiveRegistry, type Subscriber } from "../../runtime/live/liveRegistry.ts";
import type { Matching } from "../../runtime/live/readSet.ts";

/**
 * What the differential live tests share (test/unit/live-rows.test.ts on SQLite,
 * test/postgres/live-rows.test.ts): random reads watched under row and under table matching, and
 * random writes, one statement or a transaction of a few, rolled back or not.
 */
export type Statement = [index: number, params: unknown[]];

export function writeBatches(statement: fc.Arbitrary<Statement>) {
  return fc.oneof(
    statement.map((one) => ({ statements: [one], rollback: false })),
    fc
      .tuple(fc.array(statement, { minLength: 2, maxLength: 3 }), fc.boolean())
      .map(([statements, rollback]) => ({ statements, rollback })),
  );
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

/** A registry's subscriptions to `query` of each of `reads`, and the notifications each got. */
export async function watch(app: App, matching: Matching, reads: readonly Statement[]) {
  const live = new LiveRegistry(app, { matching, onError: () => {} });
  const received: string[] = [];
  for (const [i, params] of reads) {
    const args = params.map(asArgument);
    const subscriber: Subscriber = {
      uri: `q://${i}/${JSON.stringify(args)}`,
      notify: (sent) => received.push(sent),
    };
    await live.add("query", [i, args], subscriber);
  }
  return { live, received };
}

type Watched = Awaited<ReturnType<typeof watch>>;

/**
 * Runs each batch of `writes` (`sqls[i]` with its parameters; a statement that fails is rolled
 * back to a savepoint, as an app that catches it would), and after each, once both registries
 * have settled, checks that they notified the same URIs.
 */
export async function writeAndCompare(
  app: App,
  sqls: readonly (readonly [string, ...unknown[]])[],
  writes: readonly { statements: Statement[]; rollback: boolean }[],
  rows: Watched,
  tables: Watched,
): Promise<void> {
  for (const { statements, rollback } of writes) {
    await app.db
      .transaction(async () => {
        for (const [i, params] of statements)
          await app.db
            .transaction(() => app.db.run(sqls[i]![0], ...(params as never[])))
            .catch(() => {});
        if (rollback) throw new Error("rolled back");
      })
      .catch(() => {});
    await rows.live.settled();
    await tables.live.settled();
    assert.deepEqual(rows.received.sort(), tables.received.sort());
  }
  assert.ok(rows.live.stats().reruns <= tables.live.stats().reruns);
}
