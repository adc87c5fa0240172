import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import { INITIALIZE } from "../helpers/rawStreams.ts";

const PAGE = "https://agent.example";

describe("CORS on serve --http: answers for the allowed origins only", () => {
  let serving: HttpServing;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), { port: 0, allowedOrigins: [PAGE] });
  });
  after(() => serving.close());

  const preflight = (origin: string) =>
    fetch(serving.url, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,mcp-protocol-version,mcp-session-id",
      },
    });

  it("a preflight from an allowed origin is answered with the MCP headers allowed", async () => {
    const answer = await preflight(PAGE);
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(answer.headers.get("access-control-allow-methods"), "GET,POST,DELETE");
    assert.equal(
      answer.headers.get("access-control-allow-headers"),
      "Accept,Authorization,Content-Type,Last-Event-ID,Mcp-Method,Mcp-Name,Mcp-Protocol-Version,Mcp-Session-Id",
    );
  });

  it("its requests carry the CORS headers and expose Mcp-Session-Id and WWW-Authenticate", async () => {
    const answer = await fetch(serving.url, {
      method: "POST",
      headers: {
        origin: PAGE,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZE,
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(
      answer.headers.get("access-control-expose-headers"),
      "Mcp-Session-Id,WWW-Authenticate",
    );
    assert.ok(answer.headers.get("mcp-session-id"));
    await answer.body?.cancel();
  });

  it("any other origin gets no CORS headers: its preflight is refused, its requests are 403", async () => {
    const refused = await preflight("https://evil.example");
    assert.equal(refused.headers.get("access-control-allow-origin"), null);
    assert.equal(refused.status, 403);
    const request = await fetch(serving.url, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: INITIALIZE,
    });
    assert.equal(request.status, 403);
    assert.equal(request.headers.get("access-control-allow-origin"), null);
  });
});
