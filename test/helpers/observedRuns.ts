import type { App } from "../../packages/livecmd/runtime/index.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import type { TableRead } from "../../packages/livecmd/runtime/db/keyedAccess.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";

/** A command run as an agent's, with what it was told it read. */
export interface ObservedRun {
  readonly reads: TableRead[];
  readonly running: Promise<unknown>;
}

/** Runs `name(...args)` as an agent's run that `reads` is told of, cancelled by `signal` when given. */
export function runObserved(
  app: App,
  name: string,
  args: unknown[],
  signal?: AbortSignal,
): ObservedRun {
  const reads: TableRead[] = [];
  const running = engineOf(app).run(name, args, {
    origin: Origin.Agent,
    observer: { read: (each) => reads.push(...each), sawPrincipal: () => {} },
    ...(signal && { signal }),
  });
  return { reads, running };
}

/** Each read as `table.column = key, …` (keys as `livecmd inspect --reads` prints them), or `table whole`. */
export function readKeys(app: App, reads: readonly TableRead[]): string[] {
  return reads.map((read) =>
    read.column === undefined
      ? `${read.table} whole`
      : `${read.table}.${read.column} = ${read.values.map((key) => app.db.keyText(key)).join(", ")}`,
  );
}
