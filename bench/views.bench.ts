/**
 * Issue 36: a command's live view in a host of MCP Apps. From a write to the moment the view's
 * DOM shows it (Chromium, the ext-apps `AppBridge` host page of the browser test, the view
 * following the watch tool through it), against the same write's `notifications/resources/updated`
 * on a listen of the same URI, in the same run: the view's price is the watch call's way out,
 * the bridge's two postMessage hops and the render.
 *
 *   npm run bench -- views        # this row alone, printed, nothing written
 */
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { chromium } from "playwright-core";
import { createExampleApp } from "../example/app.ts";
import { Origin } from "../packages/livecmd/runtime/model/context.ts";
import { serveHttp } from "../packages/livecmd/runtime/server/index.ts";
import { hostPageServer, openView, type ViewWindow } from "../test/helpers/viewHost.ts";
import { wallClock } from "./lib/pgWatchers.ts";
import { runAlone } from "./read.bench.ts";
import {
  figureOf,
  percentile,
  ratio,
  type BenchModule,
  type Figure,
  type Section,
} from "./lib/section.ts";

/** 50 writes, in rounds: ratios are taken round by round, as a busy spell weighs on both. */
const ROUNDS = 5;
const WRITES_PER_ROUND = 10;
const WRITES = ROUNDS * WRITES_PER_ROUND;
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const URI = "app://customers_show/12";

export const viewsBench: BenchModule = {
  async run(context) {
    if (!existsSync(CHROMIUM))
      throw new Error(`bench views: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
    const host = await hostPageServer();
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    const app = createExampleApp(":memory:");
    const serving = await serveHttp(app, { port: 0, allowedOrigins: [host.origin] });
    const listener = new Client(
      { name: "bench-views", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    try {
      context.log(`views: ${WRITES} writes, the view's DOM vs a listen's notification`);
      await listener.connect(new StreamableHTTPClientTransport(serving.url));
      let heard: ((at: number) => void) | undefined;
      listener.setNotificationHandler("notifications/resources/updated", () =>
        heard?.(wallClock()),
      );
      const listen = await listener.listen({ resourceSubscriptions: [URI] });
      const { tab, view } = await openView(browser, host.origin, serving, {
        tool: "customers_show",
        arguments: { id: 12 },
      });
      const frame = await view();
      await frame.waitForSelector("main dl");
      const shown: number[] = [];
      const notified: number[] = [];
      for (let write = 0; write < WRITES; write++) {
        const name = `Ada-${write}`;
        // The listen and the view's waiting watch call, both in place before the write.
        while (serving.live.stats().subscriptions < 2)
          await new Promise((resolve) => setTimeout(resolve, 2));
        await frame.evaluate((expected) => {
          const seen = globalThis as unknown as { shownAt: Promise<number> };
          const main = (globalThis as unknown as ViewWindow).document.querySelector("main")!;
          seen.shownAt = new Promise((resolve) => {
            const observer = new (globalThis as unknown as ViewWindow).MutationObserver(() => {
              if (!main.textContent!.includes(expected)) return;
              observer.disconnect();
              resolve(
                (globalThis as unknown as ViewWindow).performance.timeOrigin +
                  (globalThis as unknown as ViewWindow).performance.now(),
              );
            });
            observer.observe(main, { subtree: true, childList: true, characterData: true });
          });
        }, name);
        const notification = new Promise<number>((resolve) => (heard = resolve));
        const began = wallClock();
        await app.run("customers_rename", [12, name], { origin: Origin.App });
        const [at, listened] = await Promise.all([
          frame.evaluate(() => (globalThis as unknown as { shownAt: Promise<number> }).shownAt),
          notification,
        ]);
        shown.push(at - began);
        notified.push(listened - began);
      }
      await tab.close();
      await listen.close();
      return section(shown, notified);
    } finally {
      await listener.close();
      await serving.close();
      await browser.close();
      await host.close();
    }
  },
};

function section(shown: number[], notified: number[]): Section {
  const roundsOf = (samples: number[]) =>
    Array.from(
      { length: ROUNDS },
      (_, round) =>
        figureOf(
          "round",
          "ms",
          samples.slice(round * WRITES_PER_ROUND, (round + 1) * WRITES_PER_ROUND),
        ).median,
    );
  const p50 = (label: string, samples: number[]) =>
    figureOf(label, "ms", samples, roundsOf(samples));
  const p99 = (label: string, samples: number[]): Figure => ({
    ...figureOf(label, "ms", samples),
    median: percentile(samples, 0.99),
  });
  const view = p50("write → the view's DOM shows it", shown);
  const listen = p50("write → listen notification", notified);
  const viewP99 = p99("p99 write → the view's DOM shows it", shown);
  const listenP99 = p99("p99 write → listen notification", notified);
  return {
    title: "A command's live view (MCP Apps) in Chromium against a listen",
    method: [
      "`serveHttp` of the example app on a fresh in-memory SQLite in the bench process; Debian's Chromium through playwright-core loads the browser test's host page (`test/e2e/fixtures/viewHost/host.ts`: the SDK client over Streamable HTTP on 127.0.0.1, ext-apps `AppBridge`), which calls `customers_show` for customer 12 and shows its view in a sandboxed iframe; a 2026-07-28 SDK client in the bench process listens to the same URI.",
      `For each of ${WRITES} writes (the app's own \`customers_rename\` of customer 12, once the listen and the view's watch call both wait): from just before the write began (the bench's wall clock) to the view's DOM holding the new name (a MutationObserver in the view, the browser's wall clock, one machine), and to the listen's \`notifications/resources/updated\`. ${ROUNDS} rounds of ${WRITES_PER_ROUND} writes; p50 ratios round by round, p99 over all ${WRITES}.`,
    ],
    figures: [view, listen, viewP99, listenP99],
    comparisons: [
      ratio("view p50: write → DOM / write → listen notification", view, listen),
      ratio("view p99: write → DOM / write → listen notification", viewP99, listenP99),
      { label: "view p50: write → DOM", value: view.median, unit: "ms" },
      { label: "view p99: write → DOM", value: viewP99.median, unit: "ms" },
    ],
    notes: [
      "Both wait on one registry group, so one re-run serves both. The view follows the watch tool, whose answer leaves before a listen's notification (the watch tool row: about 0.8x); the bridge's two postMessage hops and the render take about that lead back, so the two land within milliseconds of each other, in either order from run to run on a busy machine.",
      "The server runs in the bench process, beside playwright's driver and the listening client: absolute times here are above the watch tool row's, whose server has a process of its own; the ratio is what this row measures.",
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(viewsBench);
