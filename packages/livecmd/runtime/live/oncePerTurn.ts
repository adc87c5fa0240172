import { keepServing } from "../problems/keepServing.ts";

/**
 * `publish(uri)` at most once per URI per turn of the event loop. Every subscriber of a URI sits
 * in the same registry group and is notified in one synchronous loop, while the SDK fans one
 * `resources/updated` out to every listen whose filter holds that URI: publishing once per
 * subscriber would give each of those listens one copy per subscriber.
 */
export function oncePerTurn(publish: (uri: string) => void): (uri: string) => void {
  const pending = new Set<string>();
  const flush = keepServing("telling clients of changed resources", () => {
    const uris = [...pending];
    pending.clear();
    for (const each of uris) publish(each);
  });
  return (uri) => {
    if (pending.size === 0) queueMicrotask(flush);
    pending.add(uri);
  };
}
