/**
 * Why a statement reads a table whole, as its plan shows: it visits every row (a scan, and what
 * it filters them by when the plan says, a filter livecmd cannot test), a range of a key
 * livecmd does not follow, keys looked up off other rows that could not be told (more than a
 * lookup records or tests), a page whose bound cannot be told (`page`), or something livecmd's analysis does not follow. One value for
 * both databases, said in a few words by `wholeReasonText` for `LIVECMD_DEBUG=live` and
 * `livecmd inspect`.
 */
export type WholeReason =
  | { readonly kind: "scan"; readonly filter?: ScanFilter }
  | { readonly kind: "range"; readonly column: string }
  | { readonly kind: "lookup"; readonly from: string; readonly beyond: string }
  | { readonly kind: "page"; readonly why: string }
  | { readonly kind: "unknown"; readonly what: string };

/** A condition a scan tests every row with: a pattern match, or any other test of `column`. */
export interface ScanFilter {
  readonly column: string;
  readonly match?: "LIKE" | "ILIKE" | "GLOB" | "REGEXP";
}

/** What livecmd's analysis does not follow, said in `what`. */
export function unfollowed(what: string): WholeReason {
  return { kind: "unknown", what };
}

/**
 * `LIKE on name`, `a range on placed_on`, `every row, unfiltered`, `keys looked up from
 * appointments.patient_id: more than 10,000 supplying rows`.
 */
export function wholeReasonText(reason: WholeReason): string {
  switch (reason.kind) {
    case "scan": {
      const { filter } = reason;
      if (!filter) return "a scan of every row";
      return filter.match ? `${filter.match} on ${filter.column}` : `a filter on ${filter.column}`;
    }
    case "range":
      return `a range on ${reason.column}`;
    case "lookup":
      return `keys looked up from ${reason.from}: ${reason.beyond}`;
    case "page":
      return `a page (ORDER BY ... LIMIT) ${reason.why}`;
    case "unknown":
      return reason.what;
  }
}
