import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  getToolUiResourceUri,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { chromium, type Browser, type Frame } from "playwright-core";
import { createExampleApp } from "../../example/app.ts";
import { Origin } from "../../packages/livecmd/runtime/model/context.ts";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import { EXTENSION_ID } from "@modelcontextprotocol/ext-apps/server";
import {
  VIEW_EXTENSION_ID,
  VIEW_MIME_TYPE,
  VIEW_URI_META_KEY,
} from "../../packages/livecmd/runtime/model/viewResource.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { root } from "../helpers/cli.ts";
import type { HostReport } from "./fixtures/viewHost/host.ts";
import { hostPageServer, openView, type ViewWindow } from "../helpers/viewHost.ts";

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it), or `$CHROMIUM`. */
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const noBrowser = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM to a Chromium binary)`;
/** The screenshot docs/mcp.md shows, retaken with the golden files (`UPDATE_GOLDEN=1`). */
const SCREENSHOT = path.join(root, "docs/views/customer-view.png");

/** The view's text once it shows more than its title (the result, or a refusal). */
async function shownText(frame: Frame): Promise<string> {
  await frame.waitForFunction(
    () =>
      (globalThis as unknown as ViewWindow).document.querySelector("main dl, main .refusal") !==
      null,
  );
  return frame.locator("main").innerText();
}

describe(
  "a command's live view in a host of MCP Apps (Chromium, AppBridge)",
  { skip: noBrowser },
  () => {
    let browser: Browser;
    let host: Awaited<ReturnType<typeof hostPageServer>>;
    let app: App;
    let serving: HttpServing;
    before(async () => {
      host = await hostPageServer();
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    });
    after(async () => {
      await browser?.close();
      await host?.close();
    });
    const serve = async () => {
      app = createExampleApp(":memory:");
      serving = await serveHttp(app, { port: 0, allowedOrigins: [host.origin] });
    };
    const rename = (id: number, name: string) =>
      app.run("customers_rename", [id, name], { origin: Origin.App });

    it("shows customer 12, follows a write to 12 within a second, and ignores a write to 13", async () => {
      await serve();
      const { tab, view } = await openView(browser, host.origin, serving, {
        tool: "customers_show",
        arguments: { id: 12 },
      });
      try {
        const frame = await view();
        const before = await shownText(frame);
        const { name } = (await app.run("customers_show", [12], { origin: Origin.App })) as {
          name: string;
        };
        // Nothing changed customer 12 since the server started: it knows no time of a change.
        assert.match(before, /Customer\s+live · as of \d{4}-\d\d-\d\d/);
        assert.ok(before.includes(name), `the view shows customer 12 (${name}): ${before}`);
        assert.match(before, /Order count/, "labels are the schema's property names, spaced");
        assert.match(
          before,
          /live · as of [^\n]*\s+Id\s+12\s+Name\s/,
          "fields in the order the command returns them",
        );

        // A write to 13 changes nothing the view shows: count the view's DOM changes meanwhile.
        await frame.evaluate(() => {
          const seen = globalThis as unknown as { mutations: number };
          seen.mutations = 0;
          new (globalThis as unknown as ViewWindow).MutationObserver(
            (records: unknown[]) => (seen.mutations += records.length),
          ).observe((globalThis as unknown as ViewWindow).document.querySelector("main")!, {
            subtree: true,
            childList: true,
            characterData: true,
          });
        });
        await rename(13, "Somebody Else");
        await rename(12, "Ada Renamed");
        await frame.waitForFunction(
          () =>
            (globalThis as unknown as ViewWindow).document
              .querySelector("main")!
              .textContent!.includes("Ada Renamed"),
          undefined,
          { timeout: 1000 },
        );
        const after = await frame.locator("main").innerText();
        assert.ok(!after.includes(name), "the old name is gone");
        assert.match(after, /Customer\s+live · last changed \d{4}-\d\d-\d\d/);
        assert.ok(!after.includes("Somebody Else"));
        if (process.env.UPDATE_GOLDEN === "1")
          await tab.locator("iframe").screenshot({ path: SCREENSHOT });

        const renders = await frame.evaluate(
          () => (globalThis as unknown as { mutations: number }).mutations,
        );
        await rename(13, "Somebody Else Again");
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(
          await frame.evaluate(() => (globalThis as unknown as { mutations: number }).mutations),
          renders,
          "a write to customer 13 does not touch customer 12's view",
        );
      } finally {
        await tab.close();
        await serving.close();
      }
    });

    it("runs the app's own page (orders_between's) with the typed result, kept current", async () => {
      await serve();
      const range = { from: "2025-01-01", to: "2025-01-31" };
      const { tab, view } = await openView(browser, host.origin, serving, {
        tool: "orders_between",
        arguments: range,
      });
      try {
        const frame = await view();
        const orders = (await app.run("orders_between", [range.from, range.to], {
          origin: Origin.App,
        })) as unknown[];
        const summary = frame.locator("#summary");
        await frame.waitForFunction(() =>
          /orders, /.test(
            (globalThis as unknown as ViewWindow).document.getElementById("summary")!.textContent!,
          ),
        );
        assert.match(await summary.innerText(), new RegExp(`^${orders.length} orders, `));
        await app.run("orders_create", [{ customer_id: 12, total: 10, placed_on: "2025-01-15" }], {
          origin: Origin.App,
        });
        await frame.waitForFunction(
          (count) =>
            (globalThis as unknown as ViewWindow).document
              .getElementById("summary")!
              .textContent!.startsWith(`${count} orders`),
          orders.length + 1,
          { timeout: 1000 },
        );
      } finally {
        await tab.close();
        await serving.close();
      }
    });

    it("runs under its own policy: the view cannot reach the network", async () => {
      await serve();
      const { tab, view } = await openView(browser, host.origin, serving, {
        tool: "customers_show",
        arguments: { id: 12 },
      });
      try {
        const frame = await view();
        await shownText(frame);
        // The page's policy refuses it, before CORS is asked (the view's origin is opaque anyway).
        const violated = await frame.evaluate(
          (url) =>
            new Promise<string>((resolve) => {
              (globalThis as unknown as ViewWindow).document.addEventListener(
                "securitypolicyviolation",
                (event) => resolve(event.effectiveDirective),
              );
              fetch(url).catch(() => undefined);
            }),
          serving.url.href,
        );
        assert.equal(violated, "connect-src");
      } finally {
        await tab.close();
        await serving.close();
      }
    });

    it("shows the refusal when the principal may no longer read the URI the call read", async () => {
      await serve();
      const { tab, report, view } = await openView(browser, host.origin, serving, {
        tool: "customers_show",
        arguments: { id: 12 },
        hold: true,
      });
      try {
        await tab.waitForFunction(
          () =>
            typeof (globalThis as unknown as { livecmdHost: HostReport }).livecmdHost.show ===
            "function",
        );
        assert.equal((await report()).error, undefined);
        app.revoke(app.commands.get("customers_show")!);
        await tab.evaluate(() =>
          (globalThis as unknown as { livecmdHost: HostReport }).livecmdHost.show!(),
        );
        const frame = await view();
        await frame.waitForSelector("main .refusal");
        const text = await frame.locator("main .refusal").innerText();
        assert.match(text, /Cannot watch this URI/);
        assert.match(text, /app:\/\/customers_show\/12/);
      } finally {
        await tab.close();
        await serving.close();
      }
    });
  },
);

const ERAS_AND_TRANSPORTS = PROTOCOLS.flatMap((era) =>
  (["memory", "http"] as const).map((over) => [era, over] as const),
);

describe("a command's view as MCP serves it", () => {
  for (const [protocol, transport] of ERAS_AND_TRANSPORTS) {
    it(`lists it, links it from the tool and serves it self-contained under its own policy (${protocol}, ${transport})`, async () => {
      const app = createExampleApp(":memory:");
      const mcp = await testApp(app).mcp({ protocol, transport, views: true });
      try {
        const listed = (await mcp.resources()).find((entry) => entry.uri.startsWith("ui://"));
        assert.deepEqual(listed, {
          uri: "ui://app/customers_show",
          name: "customers_show_view",
          title: "Customer (live view)",
          description:
            "Shows what customers_show returns for the URI a call of it read, and keeps it current as the data changes (an MCP Apps view).",
          mimeType: RESOURCE_MIME_TYPE,
          _meta: { ui: { csp: NO_ORIGINS, prefersBorder: true } },
        });
        const tool = (await mcp.tools()).find((entry) => entry.name === "customers_show");
        assert.deepEqual(tool?._meta, { ui: { resourceUri: "ui://app/customers_show" } });
        assert.equal(getToolUiResourceUri(tool!), "ui://app/customers_show");

        const [content] = (await mcp.read("ui://app/customers_show")).contents;
        assert.equal(content?.mimeType, RESOURCE_MIME_TYPE);
        assert.deepEqual(content?._meta, { ui: { csp: NO_ORIGINS, prefersBorder: true } });
        const html = (content as { text: string }).text;
        const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(
          html,
        )?.[1];
        const digests = [...html.matchAll(/<(script|style)\b[^>]*>([\s\S]*?)<\/\1>/g)].map(
          ([, tag, body]) =>
            `${tag}:'sha256-${createHash("sha256").update(body!).digest("base64")}'`,
        );
        assert.deepEqual(
          policy?.split("; "),
          [
            "default-src 'none'",
            `script-src ${digests
              .filter((d) => d.startsWith("script:"))
              .map((d) => d.slice(7))
              .join(" ")}`,
            `style-src ${digests
              .filter((d) => d.startsWith("style:"))
              .map((d) => d.slice(6))
              .join(" ")}`,
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
          ],
          "nothing but the page's own inline scripts and styles, by digest",
        );
        assert.doesNotMatch(html, /\b(src|href)\s*=/, "no script, style or link from anywhere");
        // zod's other languages (260 KB) and the SDK's unused client (70 KB) are left out.
        assert.ok(
          Buffer.byteLength(html) < 350_000,
          `the page weighs ${Buffer.byteLength(html)} bytes`,
        );

        const called = await mcp.call("customers_show", { id: 12 });
        assert.equal(called._meta?.[VIEW_URI_META_KEY], "app://customers_show/12");
      } finally {
        await mcp.close();
      }
    });

    it(`refuses the view to a principal that may not read the command, as its URIs (${protocol}, ${transport})`, async () => {
      const app = createExampleApp(":memory:");
      const mcp = await testApp(app).mcp({ protocol, transport, views: true });
      try {
        app.revoke(app.commands.get("customers_show")!);
        assert.ok(
          !(await mcp.resources()).some((entry) => entry.uri === "ui://app/customers_show"),
        );
        const refused = await protocolError(mcp.read("ui://app/customers_show"), -32602);
        assert.deepEqual(refused.data, { uri: "ui://app/customers_show" });
        assert.equal(
          (await protocolError(mcp.read("app://customers_show/12"), -32602)).message.replace(
            "app://customers_show/12",
            "ui://app/customers_show",
          ),
          refused.message,
        );
      } finally {
        await mcp.close();
      }
    });
  }

  for (const [protocol, transport] of ERAS_AND_TRANSPORTS) {
    it(`lists no view to a client that did not declare the MCP Apps extension, and still serves one it reads (${protocol}, ${transport})`, async () => {
      const app = createExampleApp(":memory:");
      const mcp = await testApp(app).mcp({ protocol, transport });
      try {
        const listed = (await mcp.resources()).map((entry) => entry.uri);
        assert.ok(listed.includes("app://customers_index"), "the app's own resources are listed");
        assert.deepEqual(
          listed.filter((uri) => uri.startsWith("ui://")),
          [],
        );
        const [content] = (await mcp.read("ui://app/customers_show")).contents;
        assert.equal(content?.mimeType, RESOURCE_MIME_TYPE);
      } finally {
        await mcp.close();
      }
    });
  }

  it("names the view's MIME type and the extension as the ext-apps SDK does", () => {
    assert.equal(VIEW_MIME_TYPE, RESOURCE_MIME_TYPE);
    assert.equal(VIEW_EXTENSION_ID, EXTENSION_ID);
  });
});

/** The view reaches no origin: the extension's secure default, stated. */
const NO_ORIGINS = { connectDomains: [], resourceDomains: [], frameDomains: [] };
