/**
 * Why a statement reads a table whole, as its plan shows: it visits every row (a scan, and what
 * it filters them by when the plan says), a range of a key, or something livecmd's analysis does
 * not follow. A small value, so that what a plan says can grow (joins, more filters) without
 * changing how it is told: `wholeReasonText` says it in a few words, for `LIVECMD_DEBUG=live`
 * and `livecmd inspect`.
 */
export type WholeReason =
  | { readonly kind: "scan"; readonly filter?: ScanFilter }
  | { readonly kind: "range"; readonly column: string }
  | { readonly kind: "unknown"; readonly what: string };

/** A condition a scan tests every row with: a pattern match, or any other test of `column`. */
export interface ScanFilter {
  readonly column: string;
  readonly match?: "LIKE" | "ILIKE" | "GLOB" | "REGEXP";
}

/** `LIKE on name`, `a range on placed_on`, `every row, unfiltered`. */
export function wholeReasonText(reason: WholeReason): string {
  switch (reason.kind) {
    case "scan": {
      const { filter } = reason;
      if (!filter) return "a scan of every row";
      return filter.match ? `${filter.match} on ${filter.column}` : `a filter on ${filter.column}`;
    }
    case "range":
      return `a range on ${reason.column}`;
    case "unknown":
      return reason.what;
  }
}
