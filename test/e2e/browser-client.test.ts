import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { createExampleApp } from "../../example/app.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import { root } from "../helpers/cli.ts";
import { PROTOCOLS } from "./fixtures/protocolErrors.ts";

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it), or `$CHROMIUM`. */
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM to a Chromium binary)`;

/** The page's origin: another port of 127.0.0.1 than the MCP endpoint's, so every call is cross-origin. */
async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [path.join(root, "test/e2e/fixtures/browser/page.ts")],
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    conditions: ["livecmd-source"],
    logLevel: "error",
  });
  const script = bundle.outputFiles[0]!.text;
  const http = createServer((request, response) => {
    if (request.url?.startsWith("/page.js")) {
      response.writeHead(200, { "content-type": "text/javascript" }).end(script);
      return;
    }
    response
      .writeHead(200, { "content-type": "text/html" })
      .end(
        '<!doctype html><title>livecmd page</title><script type="module" src="/page.js"></script>',
      );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

interface PageReport {
  names: string[];
  watching: boolean;
  error?: string;
}

describe(
  "a browser page of another origin reads and watches over Streamable HTTP (CORS)",
  { skip: noBrowser },
  () => {
    let browser: Browser;
    let page: Awaited<ReturnType<typeof pageServer>>;
    before(async () => {
      page = await pageServer();
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    });
    after(async () => {
      await browser?.close();
      await page?.close();
    });

    for (const era of PROTOCOLS) {
      it(`livecmd/client in Chromium reads app://customers_show/1 and sees a write (${era})`, async () => {
        const app = createExampleApp(":memory:");
        const serving: HttpServing = await serveHttp(app, {
          port: 0,
          allowedOrigins: [page.origin],
        });
        const tab = await browser.newPage();
        try {
          const endpoint = encodeURIComponent(serving.url.href);
          await tab.goto(`${page.origin}/?era=${era}&endpoint=${endpoint}`);
          const report = () =>
            tab.evaluate(() => (globalThis as unknown as { livecmdPage: PageReport }).livecmdPage);
          await tab.waitForFunction(() => {
            const seen = (globalThis as unknown as { livecmdPage?: PageReport }).livecmdPage;
            return seen?.watching === true || seen?.error !== undefined;
          });
          assert.equal((await report()).error, undefined);
          assert.equal((await report()).names[0], "Ada Lovelace");

          await app.run("customers_rename", [1, "Ada King"], { origin: Origin.App });
          await tab.waitForFunction(() => {
            const seen = (globalThis as unknown as { livecmdPage: PageReport }).livecmdPage;
            return seen.names.at(-1) === "Ada King" || seen.error !== undefined;
          });
          assert.equal((await report()).error, undefined);
        } finally {
          await tab.close();
          await serving.close();
        }
      });
    }

    it("a page of an origin the server does not allow cannot call it: the browser sees no CORS answer", async () => {
      const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
      const tab = await browser.newPage();
      try {
        const endpoint = encodeURIComponent(serving.url.href);
        await tab.goto(`${page.origin}/?era=2025-11-25&endpoint=${endpoint}`);
        await tab.waitForFunction(
          () =>
            (globalThis as unknown as { livecmdPage?: PageReport }).livecmdPage?.error !==
            undefined,
        );
        const { error, names } = await tab.evaluate(
          () => (globalThis as unknown as { livecmdPage: PageReport }).livecmdPage,
        );
        assert.deepEqual(names, []);
        assert.match(error!, /fetch/i);
      } finally {
        await tab.close();
        await serving.close();
      }
    });
  },
);
