import { keepServing } from "../problems/keepServing.ts";
import type { Notify } from "./watchGroups.ts";

/**
 * `publish` at most once per URI per turn of the event loop, with the latest version told for
 * it. Every subscriber of a URI sits in the same registry group and is notified in one
 * synchronous loop, while the SDK fans one `resources/updated` out to every listen whose filter
 * holds that URI: publishing once per subscriber would give each of those listens one copy per
 * subscriber.
 */
export function oncePerTurn(publish: Notify): Notify {
  const pending = new Map<string, string | undefined>();
  const flush = keepServing("telling clients of changed resources", () => {
    const updates = [...pending];
    pending.clear();
    for (const [uri, version] of updates) publish(uri, version);
  });
  return (uri, version) => {
    if (pending.size === 0) queueMicrotask(flush);
    pending.set(uri, version);
  };
}
