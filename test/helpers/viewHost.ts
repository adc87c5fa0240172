import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { build } from "esbuild";
import type { Browser, Frame, Page } from "playwright-core";
import type { HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import type { HostReport } from "../e2e/fixtures/viewHost/host.ts";
import { root } from "./cli.ts";

/** The host page, on another port of 127.0.0.1 than the MCP endpoint: every call is cross-origin. */
export async function hostPageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [path.join(root, "test/e2e/fixtures/viewHost/host.ts")],
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    logLevel: "error",
  });
  const script = bundle.outputFiles[0]!.text;
  const http = createServer((request, response) => {
    if (request.url?.startsWith("/host.js")) {
      response.writeHead(200, { "content-type": "text/javascript" }).end(script);
      return;
    }
    response
      .writeHead(200, { "content-type": "text/html" })
      .end('<!doctype html><title>view host</title><script type="module" src="/host.js"></script>');
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

/** The host page showing `tool`'s view for `args`: the page, and the view's frame once shown. */
export async function openView(
  browser: Browser,
  host: string,
  serving: HttpServing,
  call: { tool: string; arguments: Record<string, unknown>; hold?: boolean },
): Promise<{ tab: Page; report: () => Promise<HostReport>; view: () => Promise<Frame> }> {
  const tab = await browser.newPage();
  const query = new URLSearchParams({
    endpoint: serving.url.href,
    tool: call.tool,
    arguments: JSON.stringify(call.arguments),
    ...(call.hold && { hold: "1" }),
  });
  await tab.goto(`${host}/?${query}`);
  const report = () =>
    tab.evaluate(() => {
      const { show: _, ...seen } = (globalThis as unknown as { livecmdHost: HostReport })
        .livecmdHost;
      return seen;
    });
  const view = async () => {
    await tab.waitForFunction(
      () =>
        (globalThis as unknown as { livecmdHost?: HostReport }).livecmdHost?.phase !== "connecting",
    );
    const seen = await report();
    assert.equal(seen.error, undefined);
    const frame = tab.frames().find((candidate) => candidate !== tab.mainFrame());
    assert.ok(frame, "the host shows the view in an iframe");
    return frame;
  };
  return { tab, report, view };
}

/**
 * What a view's window has that the functions the tests and the bench run in it use: the
 * repository's tsconfig has no DOM library (`const { document } = globalThis as unknown as ViewWindow`).
 */
export interface ViewWindow {
  document: {
    querySelector(selector: string): { textContent: string | null } | null;
    getElementById(id: string): { textContent: string | null } | null;
    addEventListener(
      type: "securitypolicyviolation",
      listener: (event: { effectiveDirective: string }) => void,
    ): void;
  };
  MutationObserver: new (callback: (records: unknown[]) => void) => {
    observe(target: unknown, options: object): void;
    disconnect(): void;
  };
  performance: { timeOrigin: number; now(): number };
  /** DOM changes counted since `countMutations` began. */
  mutations: number;
  /** When the view's DOM first held the text `shownAt` waits for (the browser's wall clock). */
  shownAt: Promise<number>;
}
