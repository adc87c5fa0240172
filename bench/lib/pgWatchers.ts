import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import { LiveRegistry } from "../../packages/livecmd/runtime/live/liveRegistry.ts";
import type { Matching } from "../../packages/livecmd/runtime/live/readSet.ts";

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * `customers_show/1..count` watched on `app` through its own registry, as a serve process holds
 * its clients' subscriptions; `told(uri, at)` for every notification, stamped when it is made.
 * `matching` "tables" is how livecmd matched before row-level reads, for comparison.
 */
export async function watchCustomers(
  app: App,
  count: number,
  told: (uri: string, at: number) => void,
  matching: Matching = "rows",
): Promise<LiveRegistry> {
  const registry = new LiveRegistry(app, { matching });
  const notify = (uri: string) => told(uri, wallClock());
  for (let id = 1; id <= count; id++)
    await registry.add("customers_show", [id], { uri: `app://customers_show/${id}`, notify });
  await registry.settled();
  return registry;
}
