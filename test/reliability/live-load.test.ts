import assert from "node:assert/strict";
import { it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describeReport, runLiveLoad } from "./support/liveLoad.ts";

// `npm test` runs without --expose-gc; this exposes it to a new context, which is enough to collect.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * The CI-sized live load (`npm run load -- --live` runs 500 listens and 10,000 writes): 50
 * concurrent 2026-07-28 listens of 64 URIs (drawn from 136) over HTTP on 127.0.0.1, then 1,000
 * renames of 400 customers (120 of them watched) by 32 clients while 2 others read. See support/liveLoad.ts for what each check means.
 */
it("50 listens of 64 URIs and a burst of 1,000 writes: no lost update, no spurious one, reads answered throughout, the registry empty and the heap back near its baseline after everyone leaves", async () => {
  const report = await runLiveLoad({
    listens: 50,
    urisPerListen: 64,
    writes: 1000,
    writers: 32,
    readers: 2,
    targets: 400,
    shows: 120,
    groups: 8,
    untouched: 8,
    seed: 20260728,
    // A safety bound, not a speed target: under a loaded CI machine the burst runs at ~45 writes/s.
    deadlineMs: 120_000,
    gc,
  });
  const summary = describeReport(report);
  assert.equal(report.timedOut, false, summary);
  assert.equal(report.writes, 1000, summary);
  assert.equal(report.subscriptions, 50 * 64, summary);
  assert.deepEqual(report.modelMismatches, [], summary);
  assert.ok(report.changedPairs > 1000, `most listen-URI pairs are written: ${summary}`);
  assert.deepEqual(report.lostUpdates, [], summary);
  assert.deepEqual(report.spuriousUpdates, [], summary);
  assert.deepEqual(report.failedReads, [], summary);
  assert.ok(report.reads >= 50, `reads kept being answered during the burst: ${summary}`);
  assert.deepEqual(report.statsAfterDisconnect, { subscriptions: 0, groups: 0 }, summary);
  const heap = report.heapMiB!;
  // The listens cost ~7 MiB; ~3 MiB stays (caches filled by the burst), wherever the
  // subscriptions go. Were they all kept, the heap would stay above what it was while listening.
  assert.ok(heap.afterDisconnect < heap.listening, `the listens' memory was released: ${summary}`);
  assert.ok(heap.afterDisconnect - heap.baseline < 8, `heap back near its baseline: ${summary}`);
  console.log(summary);
});
