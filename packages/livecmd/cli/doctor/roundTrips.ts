/**
 * What a whole listing costs a host before it can draw a complete menu: one round trip per
 * page, entries divided by the page size and rounded up (a short last page is still a request,
 * and an empty listing is one), times the cost of a page. Multiplying is exact, not a bound:
 * each cursor arrives inside the previous page, so no two pages can be in flight at once.
 * 340 entries at 100 a page and 45 ms a page: 4 round trips, 180 ms; 50,000: 500, 22.5 s.
 */
export interface RoundTrips {
  entries: number;
  pageSize: number;
  roundTrips: number;
  msPerPage: number;
  totalMs: number;
}

export function roundTrips(entries: number, pageSize: number, msPerPage: number): RoundTrips {
  const trips = Math.max(1, Math.ceil(entries / Math.max(1, pageSize)));
  return { entries, pageSize, roundTrips: trips, msPerPage, totalMs: trips * msPerPage };
}
