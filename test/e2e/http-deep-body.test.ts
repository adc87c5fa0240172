import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import express from "express";
import { Hono } from "hono";
import { createExampleApp } from "../../example/app.ts";
import { mcpHandler, serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { MODERN_ENVELOPE } from "../helpers/rawStreams.ts";

/** How deep the bodies nest: `JSON.parse` takes it, `JSON.stringify` runs out of stack on it. */
const DEPTH = 20_000;
const NESTED = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;

/** A server of the endpoint, at `url`'s `/mcp`. */
interface Mounted {
  url: URL;
  close(): Promise<void>;
}

/** Starts the endpoint, telling `onerror` what it takes for a server fault. */
type Mount = (onerror: (error: Error) => void) => Promise<Mounted>;

/** Each way the endpoint is served, by who reads the body first. */
const MOUNTS: [string, Mount][] = [
  [
    "serveHttp (the endpoint reads the body)",
    async (onerror) => {
      const serving = await serveHttp(createExampleApp(":memory:"), { port: 0, onerror });
      return { url: serving.url, close: () => serving.close() };
    },
  ],
  [
    "Express after express.json() (req.body parsed)",
    async (onerror) => {
      const mcp = mcpHandler(createExampleApp(":memory:"), { onerror });
      const web = express();
      web.use(express.json());
      web.all("/mcp", mcp.node);
      return listening(web.listen(0, "127.0.0.1"), () => mcp.close());
    },
  ],
  [
    "node:http, the body parsed by the app and passed third (Fastify's form)",
    async (onerror) => {
      const mcp = mcpHandler(createExampleApp(":memory:"), { onerror });
      const server = createServer(async (request, response) => {
        let text = "";
        for await (const chunk of request) text += chunk as string;
        void mcp.node(request, response, JSON.parse(text));
      });
      return listening(server.listen(0, "127.0.0.1"), () => mcp.close());
    },
  ],
  [
    "Hono on @hono/node-server (the fetch face)",
    async (onerror) => {
      const mcp = mcpHandler(createExampleApp(":memory:"), { onerror });
      const web = new Hono();
      web.all("/mcp", (c) => mcp.fetch(c.req.raw, getConnInfo(c)));
      const server = serve({ fetch: web.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
      return listening(server, () => mcp.close());
    },
  ],
];

/** Bodies nested `DEPTH` deep, and what the endpoint answers each: a client's error or a result. */
const BODIES: { body: string; headers: Record<string, string>; status: number; answer: RegExp }[] =
  [
    {
      body: NESTED,
      headers: {},
      status: 400,
      answer: /"code":-32600,"message":"Bad Request: JSON-RPC batch contains an invalid message"/,
    },
    {
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"customers_show","arguments":{"id":${NESTED}},"_meta":${JSON.stringify(MODERN_ENVELOPE)}}}`,
      headers: {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "customers_show",
      },
      status: 200,
      answer: /"text":"Invalid arguments for customers_show: id: must be an integer;/,
    },
  ];

describe(`a JSON body nested ${DEPTH} deep is answered as the endpoint answers it unparsed, whoever parsed it, never as a server fault`, () => {
  for (const [name, mount] of MOUNTS) {
    it(name, async () => {
      const faults: Error[] = [];
      const mounted = await mount((error) => faults.push(error));
      try {
        for (const { body, headers, status, answer } of BODIES) {
          const response = await fetch(new URL("/mcp", mounted.url), {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              ...headers,
            },
            body,
          });
          const text = await response.text();
          assert.equal(response.status, status, text);
          assert.match(text, answer);
        }
        assert.deepEqual(
          faults.map((fault) => fault.message),
          [],
        );
      } finally {
        await mounted.close();
      }
    });
  }
});

async function listening(server: Server, closeEndpoint: () => Promise<void>): Promise<Mounted> {
  if (!server.listening) await once(server, "listening");
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
    close: async () => {
      await closeEndpoint();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
