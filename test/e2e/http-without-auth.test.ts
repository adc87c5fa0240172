import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import {
  mcpHandler,
  serveHttp,
  staticTokens,
  type McpHandlerOptions,
} from "../../packages/livecmd/runtime/server/index.ts";
import { root, run } from "../helpers/cli.ts";
import { nginxMissing, startNginx } from "../helpers/nginx.ts";
import { INITIALIZE } from "../helpers/rawStreams.ts";
import { CLI, servedCli } from "../helpers/servedCli.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const JSON_AND_SSE = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const TOKEN = "proxied-secret-0123";
const PUBLIC = new URL("https://mcp.example.test/mcp");

const TOKENS = `${TOKEN} # proxied\n`;

/** Options that tell an endpoint it is reached from elsewhere: without auth, refused at start. */
const REACHED_FROM_ELSEWHERE: [rule: string, options: McpHandlerOptions, refusal: RegExp][] = [
  [
    "a public URL on another host",
    { publicUrl: PUBLIC },
    /the public URL https:\/\/mcp\.example\.test\/mcp is where clients on other machines reach this endpoint \(through a proxy\), and it has no auth: .*Pass auth \(livecmd serve --tokens FILE/,
  ],
  [
    "an allowed host that is not this machine",
    { allowedHosts: ["mcp.example.test"] },
    /the allowed host mcp\.example\.test is a name clients on other machines reach this endpoint by/,
  ],
];

/** Options that name this machine alone: served without auth. */
const THIS_MACHINE: [rule: string, options: McpHandlerOptions][] = [
  ["a public URL on loopback", { publicUrl: new URL("http://localhost:3000/mcp") }],
  ["an allowed host under .localhost (RFC 6761)", { allowedHosts: ["app.localhost"] }],
];

describe("an endpoint without auth answers this machine alone, whatever stands in front of it", () => {
  for (const [rule, options, refusal] of REACHED_FROM_ELSEWHERE) {
    it(`refuses to start with ${rule}, naming the fix`, async () => {
      await assert.rejects(
        serveHttp(createExampleApp(":memory:"), { port: 0, ...options }),
        refusal,
      );
      assert.throws(() => mcpHandler(createExampleApp(":memory:"), options), refusal);
    });
    it(`starts with ${rule} once it has auth`, async () => {
      const auth = staticTokens(tokensFile(TOKENS));
      const serving = await serveHttp(createExampleApp(":memory:"), { port: 0, auth, ...options });
      await serving.close();
    });
  }
  for (const [rule, options] of THIS_MACHINE) {
    it(`starts with ${rule}`, async () => {
      const serving = await serveHttp(createExampleApp(":memory:"), { port: 0, ...options });
      await serving.close();
    });
  }

  it("livecmd serve --public-url without --tokens or --issuer exits 2, saying what to pass", async () => {
    const { code, stderr } = await run(
      process.execPath,
      [...CLI, "serve", "--app", "example/app.ts", "--http", "0", "--public-url", PUBLIC.href],
      { cwd: root, env: { ...process.env, LIVECMD_EXAMPLE_DB: ":memory:" } },
    );
    assert.equal(code, 2, stderr);
    assert.match(stderr, /has no auth: every granted command would be open to them/);
  });

  it("the fetch face, told no client address, refuses; told a loopback one, or given auth, it serves", async () => {
    const post = () =>
      // As a web server hands it over: with the Host its client named.
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...JSON_AND_SSE, host: "localhost" },
        body: INITIALIZE,
      });
    const open = mcpHandler(createExampleApp(":memory:"));
    const unknown = await open.fetch(post());
    assert.equal(unknown.status, 403);
    assert.match(
      await unknown.text(),
      /did not tell who this client is; .*mcp\.fetch\(request, \{ remote \}\)/,
    );
    const local = await open.fetch(post(), { remote: { address: "127.0.0.1" } });
    assert.equal(local.status, 200);
    await local.body?.cancel();
    await open.close();
    const guarded = mcpHandler(createExampleApp(":memory:"), {
      auth: staticTokens(tokensFile(TOKENS)),
    });
    const request = post();
    request.headers.set("authorization", `Bearer ${TOKEN}`);
    const served = await guarded.fetch(request);
    assert.equal(served.status, 200);
    await served.body?.cancel();
    await guarded.close();
  });

  it(
    "behind the docs' nginx block: refused without auth (X-Forwarded-For), served with --tokens",
    { skip: nginxMissing() },
    async () => {
      for (const [flags, status] of [
        [[], 403],
        [["--tokens", tokensFile(TOKENS)], 200],
      ] as const) {
        const served = await servedCli(flags);
        const nginx = await startNginx([served.url]);
        try {
          const answer = await fetch(nginx.url, {
            method: "POST",
            headers: { ...JSON_AND_SSE, authorization: `Bearer ${TOKEN}` },
            body: INITIALIZE,
          });
          const text = await answer.text();
          assert.equal(answer.status, status, text);
          if (status === 403)
            assert.match(text, /came through a proxy \(it carries x-forwarded-for\)/);
        } finally {
          await nginx.close();
          await served.close();
        }
      }
    },
  );
});
