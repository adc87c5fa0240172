import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import express from "express";
import { Hono } from "hono";
import { exampleAppsOn } from "../helpers/exampleAppsOn.ts";
import type { App } from "../../packages/livecmd/runtime/model/app.ts";
import { mcpHandler, type McpHandler } from "../../packages/livecmd/runtime/server/index.ts";
import { emptyDatabase, postgresServer, psql } from "../helpers/postgres.ts";
import { initialize, sessionRequest } from "../helpers/rawStreams.ts";

const server = postgresServer();

/** A replica: the example app on the shared database, its endpoint mounted in `kind`'s server. */
async function replica(
  kind: "express" | "hono",
  app: App,
): Promise<{ url: URL; mcp: McpHandler; close(): void }> {
  const mcp = mcpHandler(app);
  const http =
    kind === "express"
      ? express().all("/mcp", mcp.node).listen(0, "127.0.0.1")
      : serve({
          fetch: new Hono().all("/mcp", (c) => mcp.fetch(c.req.raw, getConnInfo(c))).fetch,
          port: 0,
          hostname: "127.0.0.1",
        });
  await new Promise((resolve) => http.once("listening", resolve));
  // Ready once it hears the other replicas (what a balancer's health check waits for).
  while ((await mcp.readiness()).status !== "ok")
    await new Promise((resolve) => setTimeout(resolve, 20));
  const { port } = http.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), mcp, close: () => http.close() };
}

describe(
  "2025 sessions shared by replicas whose endpoints are mounted (Express, Hono) on one PostgreSQL",
  { skip: server.skip },
  () => {
    let databaseUrl: string;
    const apps: App[] = [];
    const replicas: Awaited<ReturnType<typeof replica>>[] = [];

    before(async () => {
      databaseUrl = await emptyDatabase(server.url!);
      apps.push(...exampleAppsOn(databaseUrl, 2));
      replicas.push(await replica("express", apps[0]!), await replica("hono", apps[1]!));
    });

    after(async () => {
      for (const each of replicas) {
        await each.mcp.close({ drainMs: 0 });
        each.close();
      }
      for (const app of apps) await app.close();
    });

    test("a session opened on the Express replica is answered by the Hono one; its DELETE there ends it for both", async () => {
      const [a, b] = replicas.map(({ url }) => url) as [URL, URL];
      const { session } = await initialize(a);
      assert.ok(session);
      const stored = () =>
        psql(databaseUrl, `SELECT count(*) FROM livecmd.sessions WHERE id = '${session}'`);
      assert.equal(stored(), "1");
      const read = (url: URL) =>
        sessionRequest(url, session, {
          id: 2,
          method: "resources/read",
          params: { uri: "app://customers_show/1" },
        });
      const fromB = await read(b);
      assert.equal(fromB.status, 200);
      assert.match(await fromB.text(), /"result"/);
      const deleted = await fetch(b, {
        method: "DELETE",
        headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      });
      assert.equal(deleted.status, 200);
      assert.equal(stored(), "0");
      for (let waited = 0; (await read(a)).status !== 404; waited += 20) {
        if (waited > 10_000) assert.fail("the Express replica drops the session within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  },
);
