import assert from "node:assert/strict";
import { request } from "node:http";
import { hostname, networkInterfaces } from "node:os";
import { after, before, describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import {
  jwtBearer,
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../../packages/livecmd/runtime/server/index.ts";
import { INITIALIZE } from "../helpers/rawStreams.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const TOKEN = "reader-secret-0123";
const TOKENS = `${TOKEN} customers:read # reader\n`;

/** A request to the endpoint on 127.0.0.1 naming `host` in its Host header (fetch will not). */
function sent(
  port: number,
  host: string,
  { method = "POST", path: at = "/mcp", token }: { method?: string; path?: string; token?: string },
): Promise<{ status: number; text: string; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: at,
        headers: {
          host,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token !== undefined && { authorization: `Bearer ${token}` }),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode!,
            text,
            challenge: response.headers["www-authenticate"],
          }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(method === "POST" ? INITIALIZE : undefined);
  });
}

/** This machine's own names as a client on the network would put them in Host. */
function ownNames(): string[] {
  const v4 = Object.values(networkInterfaces())
    .flat()
    .find((each) => each?.family === "IPv4" && !each.internal)?.address;
  return [hostname(), ...(v4 ? [v4] : [])];
}

describe("serving on every interface (--host 0.0.0.0)", () => {
  let serving: HttpServing;
  let port: number;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      host: "0.0.0.0",
      auth: staticTokens(tokensFile(TOKENS)),
    });
    port = Number(serving.url.port);
  });
  after(() => serving.close());

  for (const name of ownNames()) {
    it(`answers a Host naming this machine (${name})`, async () => {
      const answer = await sent(port, `${name}:${port}`, { token: TOKEN });
      assert.equal(answer.status, 200, answer.text);
    });
  }

  it("still refuses a Host that is not this machine", async () => {
    assert.equal((await sent(port, "evil.example", { token: TOKEN })).status, 403);
  });

  it("advertises no guessed URL: no metadata document, and none named in challenges", async () => {
    const metadata = await sent(port, `127.0.0.1:${port}`, {
      method: "GET",
      path: "/.well-known/oauth-protected-resource/mcp",
    });
    assert.equal(metadata.status, 404);
    assert.match(metadata.text, /given no public URL to advertise; start it with --public-url/);
    const refused = await sent(port, `127.0.0.1:${port}`, {});
    assert.equal(refused.status, 401);
    assert.doesNotMatch(refused.challenge ?? "", /0\.0\.0\.0|resource_metadata/);
  });
});

describe("serving on every interface with a public URL", () => {
  it("advertises the public URL", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      host: "0.0.0.0",
      auth: staticTokens(tokensFile(TOKENS)),
      publicUrl: new URL("https://mcp.example.test/mcp"),
    });
    try {
      const metadata = await sent(Number(serving.url.port), "mcp.example.test", {
        method: "GET",
        path: "/.well-known/oauth-protected-resource/mcp",
      });
      assert.equal(
        (JSON.parse(metadata.text) as { resource: string }).resource,
        "https://mcp.example.test/mcp",
      );
    } finally {
      await serving.close();
    }
  });

  it("refuses JWTs for an audience without a public URL to match it", async () => {
    await assert.rejects(
      serveHttp(createExampleApp(":memory:"), {
        port: 0,
        host: "0.0.0.0",
        auth: jwtBearer({ issuer: "http://127.0.0.1:9", audience: "https://mcp.example.test/mcp" }),
      }),
      /serving on every interface, .*; pass --public-url https:\/\/mcp\.example\.test\/mcp$/,
    );
  });
});
