import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { roundTrips } from "../../packages/livecmd/cli/doctor/roundTrips.ts";
import { walkListing, type ListingPage } from "../../packages/livecmd/cli/doctor/walkListing.ts";

/** A listing served from fixed pages: cursor "" is the first page, and each names its next. */
function pagesOf(pages: Record<string, ListingPage<string>>) {
  return async (cursor: string | undefined) => {
    const page = pages[cursor ?? ""];
    if (!page) throw new Error(`Invalid cursor ${cursor}`);
    return page;
  };
}

describe("walking a paginated listing", () => {
  it("follows every cursor to the page without one", async () => {
    const walk = await walkListing(
      pagesOf({
        "": { items: ["a", "b"], nextCursor: "2" },
        "2": { items: ["c", "d"], nextCursor: "3" },
        "3": { items: ["e"] },
      }),
    );
    assert.deepEqual(walk.items, ["a", "b", "c", "d", "e"]);
    assert.deepEqual(
      walk.pages.map((page) => page.entries),
      [2, 2, 1],
    );
    assert.deepEqual(walk.end, { kind: "complete" });
  });

  it("takes an empty-string cursor as a cursor, not as the end", async () => {
    const walk = await walkListing(pagesOf({ "": { items: ["a"], nextCursor: "" } }));
    assert.deepEqual(walk.end, { kind: "repeatedCursor", page: 2, cursor: "", firstPage: 1 });
  });

  it("stops at a cursor the listing gave before, naming both pages", async () => {
    const walk = await walkListing(
      pagesOf({
        "": { items: ["a"], nextCursor: "2" },
        "2": { items: ["b"], nextCursor: "3" },
        "3": { items: ["c"], nextCursor: "2" },
      }),
    );
    assert.deepEqual(walk.end, { kind: "repeatedCursor", page: 3, cursor: "2", firstPage: 1 });
    assert.deepEqual(walk.items, ["a", "b", "c"]);
  });

  it("stops at a cursor that repeats the request's own", async () => {
    const walk = await walkListing(
      pagesOf({
        "": { items: ["a"], nextCursor: "same" },
        same: { items: ["a"], nextCursor: "same" },
      }),
    );
    assert.deepEqual(walk.end, { kind: "repeatedCursor", page: 2, cursor: "same", firstPage: 1 });
  });

  it("gives up after the page bound when cursors never end", async () => {
    let served = 0;
    const walk = await walkListing(
      async () => ({ items: [`entry ${served}`], nextCursor: `cursor ${++served}` }),
      50,
    );
    assert.deepEqual(walk.end, { kind: "bounded", pages: 50 });
    assert.equal(served, 50);
  });

  it("reports the page that failed, keeping the pages before it", async () => {
    const walk = await walkListing(pagesOf({ "": { items: ["a"], nextCursor: "gone" } }));
    assert.equal(walk.end.kind, "failed");
    assert.equal(walk.end.kind === "failed" && walk.end.page, 2);
    assert.deepEqual(walk.items, ["a"]);
  });
});

describe("a listing's round trips (the chapter's arithmetic)", () => {
  const cases: [
    entries: number,
    pageSize: number,
    msPerPage: number,
    trips: number,
    totalMs: number,
  ][] = [
    [340, 100, 45, 4, 180],
    [50_000, 100, 45, 500, 22_500],
    [300, 100, 45, 3, 135],
    [1, 100, 45, 1, 45],
    [0, 100, 45, 1, 45],
  ];
  for (const [entries, pageSize, msPerPage, trips, totalMs] of cases) {
    it(`${entries} entries at ${pageSize} a page and ${msPerPage} ms a page: ${trips} round trips, ${totalMs} ms`, () => {
      const computed = roundTrips(entries, pageSize, msPerPage);
      assert.deepEqual([computed.roundTrips, computed.totalMs], [trips, totalMs]);
    });
  }
});
