import { errorText, isMethodNotFound } from "./errorText.ts";
import { fail, ok, warn, type Finding } from "./report.ts";
import { roundTrips } from "./roundTrips.ts";
import type { Walk } from "./walkListing.ts";
import { formatMs, plural, sample } from "./wording.ts";

export type ListingMethod = "resources/list" | "resources/templates/list";

/** The SDK client's `listMaxPages`: its listResources() throws rather than walk past it. */
const SDK_CLIENT_MAX_PAGES = 64;
/** Past this, the chapter's arithmetic says the menu is a spinner, not a listing. */
const SLOW_LISTING_MS = 2000;

const PAGINATION_FIX =
  "give each page a nextCursor that leads to the next page and was never given before, and none on the last page";
const TOO_BIG_FIX =
  "advertise large families as templates with completion (one entry, one round trip) instead of enumerating them";

/**
 * Fault 2 of the four: a listing a host cannot walk to its end, which loses the suffix after
 * the break. `declared`: whether the handshake declared resources (an undeclared listing that
 * is not served is no fault).
 */
export function listingFinding<T>(
  method: ListingMethod,
  walk: Walk<T>,
  keyOf: (entry: T) => string,
  declared: boolean,
  timeoutMs: number,
): Finding {
  const { end } = walk;
  if (end.kind === "failed") return failedWalkFinding(method, walk, end, declared, timeoutMs);
  if (end.kind === "repeatedCursor") {
    return fail(
      method,
      `page ${end.page} gave nextCursor ${JSON.stringify(end.cursor)}, which page ${end.firstPage} gave already: a host following cursors goes round the same pages forever, or stops and never shows the rest`,
      PAGINATION_FIX,
    );
  }
  if (end.kind === "bounded") {
    return fail(
      method,
      `still a nextCursor after ${end.pages} pages (${walk.items.length} entries): a host never reaches the end`,
      PAGINATION_FIX,
    );
  }
  return completeWalkFinding(method, walk, keyOf);
}

function failedWalkFinding(
  method: ListingMethod,
  walk: Walk<unknown>,
  end: { page: number; error: unknown },
  declared: boolean,
  timeoutMs: number,
): Finding {
  const error = errorText(end.error, timeoutMs);
  if (end.page === 1 && isMethodNotFound(end.error)) {
    if (!declared) return ok(method, `not served (${error}), as no resources are declared`);
    if (method === "resources/templates/list") {
      return warn(
        method,
        `not served (${error}): a host that asks for templates gets an error instead of an empty list`,
        "answer resources/templates/list, with an empty list when there are no templates",
      );
    }
  }
  if (end.page === 1) {
    return fail(
      method,
      `fails: ${error}`,
      `make ${method} answer; a host lists nothing without it`,
    );
  }
  return fail(
    method,
    `page ${end.page} fails (${error}) after ${walk.items.length} entries on ${end.page - 1} pages: a host shows those and never the rest`,
    "make every cursor the server gives out valid for the page after it",
  );
}

function completeWalkFinding<T>(
  method: ListingMethod,
  walk: Walk<T>,
  keyOf: (entry: T) => string,
): Finding {
  const { items, pages } = walk;
  const pageSize = Math.max(...pages.map((page) => page.entries));
  const msPerPage = median(pages.map((page) => page.ms));
  const trips = roundTrips(items.length, pageSize, msPerPage);
  const detail =
    items.length === 0
      ? `empty: ${plural(pages.length, "round trip")} of ${formatMs(msPerPage)}`
      : `${plural(items.length, "entry", "entries")} on ${plural(pages.length, "page")} of up to ${pageSize}: ${plural(trips.roundTrips, "round trip")} × ${formatMs(msPerPage)} = ${formatMs(trips.totalMs)} before a host has the whole listing${trips.roundTrips === pages.length ? "" : ` (uneven pages: the walk took ${pages.length})`}`;
  if (pages.length > SDK_CLIENT_MAX_PAGES) {
    return warn(
      method,
      `${detail}; the SDK client's own walk gives up with an error after ${SDK_CLIENT_MAX_PAGES} pages (listMaxPages), so a host built on it shows none of it`,
      `use pages large enough for ${SDK_CLIENT_MAX_PAGES} of them to hold the listing, or ${TOO_BIG_FIX}`,
    );
  }
  if (trips.totalMs > SLOW_LISTING_MS)
    return warn(method, `${detail}: a menu nobody waits for`, TOO_BIG_FIX);
  const repeated = repeatedEntries(items.map(keyOf));
  if (repeated.length > 0) {
    return warn(
      method,
      `${detail}; listed more than once: ${sample(repeated)}, so pages overlap and may skip entries too`,
      "start each page where the previous one ended, by a stable order",
    );
  }
  return ok(method, detail);
}

function repeatedEntries(keys: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  return [...repeated];
}

/**
 * The cost of a page: the median, so that one slow page (the first on a connection often is,
 * while the server builds what it serves) does not stand for all of them.
 */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
