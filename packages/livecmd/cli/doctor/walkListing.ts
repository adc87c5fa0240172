/** One page of a paginated listing, as the server sent it. */
export interface ListingPage<T> {
  items: T[];
  nextCursor?: string;
}

export interface PageTiming {
  entries: number;
  ms: number;
}

/** Why the walk stopped: the listing's end, or the reason a host would never reach it. */
export type WalkEnd =
  | { kind: "complete" }
  | { kind: "repeatedCursor"; page: number; cursor: string; firstPage: number }
  | { kind: "failed"; page: number; error: unknown }
  | { kind: "bounded"; pages: number };

export interface Walk<T> {
  items: T[];
  pages: PageTiming[];
  end: WalkEnd;
}

/** Enough for any listing a host could show; a walk still going after it is not ending. */
export const MAX_PAGES = 1000;

/**
 * Follows every cursor, one request after another as a host must (the next cursor arrives in
 * the current page), timing each page. A cursor the server already gave would send a host
 * round the same pages forever, so the walk stops there.
 */
export async function walkListing<T>(
  fetchPage: (cursor: string | undefined) => Promise<ListingPage<T>>,
  maxPages = MAX_PAGES,
): Promise<Walk<T>> {
  const items: T[] = [];
  const pages: PageTiming[] = [];
  const givenBy = new Map<string, number>();
  let cursor: string | undefined;
  for (let page = 1; page <= maxPages; page++) {
    const started = performance.now();
    let result: ListingPage<T>;
    try {
      result = await fetchPage(cursor);
    } catch (error) {
      return { items, pages, end: { kind: "failed", page, error } };
    }
    pages.push({ entries: result.items.length, ms: performance.now() - started });
    items.push(...result.items);
    if (result.nextCursor === undefined) return { items, pages, end: { kind: "complete" } };
    const firstPage = givenBy.get(result.nextCursor);
    if (firstPage !== undefined) {
      return {
        items,
        pages,
        end: { kind: "repeatedCursor", page, cursor: result.nextCursor, firstPage },
      };
    }
    givenBy.set(result.nextCursor, page);
    cursor = result.nextCursor;
  }
  return { items, pages, end: { kind: "bounded", pages: maxPages } };
}
