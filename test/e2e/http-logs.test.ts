import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

/** A 2026-07-28 read the SDK refuses and logs (no Mcp-Name; sent chunked, so the SDK reads it). */
async function forgingRead(url: URL, token?: string): Promise<void> {
  const uri = "app://customers_show/1\nlivecmd: re-read tokens.txt: 99 tokens\u0000";
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "resources/read",
    params: {
      uri,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "resources/read",
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: new Blob([body]).stream(),
    duplex: "half",
  } as RequestInit);
  await response.text();
}

for (const format of ["pretty", "json"] as const) {
  describe(`log lines (--log-format ${format})`, () => {
    let served: ServedCli;
    before(async () => {
      served = await servedCli(["--log-format", format]);
    });
    after(() => served.close());

    it("writes a client's newline and NUL escaped, on the one line of the request", async () => {
      await forgingRead(served.url);
      const line = await served.stderrLine(/Mcp-Name/);
      const lines = served.stderr().split("\n").filter(Boolean);
      assert.ok(!served.stderr().includes("\u0000"), "a raw NUL reached stderr");
      assert.ok(
        !lines.some((each) => /^livecmd: re-read/.test(each)),
        `a forged line: ${served.stderr()}`,
      );
      if (format === "pretty") {
        assert.match(
          line,
          /^livecmd: .*customers_show\/1\\u000alivecmd: re-read.*\\u0000.*\(request r\d+\)$/,
        );
        return;
      }
      for (const each of lines) JSON.parse(each);
      const entry = JSON.parse(line) as Record<string, unknown>;
      // The client's fault, answered: a refusal, not an error of the server's.
      assert.equal(entry.level, "warn");
      assert.match(String(entry.req), /^r\d+$/);
      assert.match(
        String(entry.msg),
        /^refused a client's request \(name-header-missing\): Bad Request: .*customers_show\/1\nlivecmd: re-read/,
      );
      assert.equal(typeof entry.time, "string");
    });

    it("writes one line for a refusal sent again and again (the others are counted, told a minute later)", async () => {
      for (let sent = 0; sent < 5; sent++) await forgingRead(served.url);
      // Another kind of refusal, logged after those: once its line is out, theirs are too.
      await fetch(served.url, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "{}",
      });
      await served.stderrLine(/unsupported-media-type/);
      const refusals = served
        .stderr()
        .split("\n")
        .filter((line) => /Mcp-Name/.test(line));
      assert.equal(refusals.length, 1, served.stderr());
    });
  });
}

describe("log lines of an authenticated request", () => {
  let served: ServedCli;
  before(async () => {
    const file = tokensFile("reader-secret-0123 customers:read # reader\n");
    served = await servedCli(["--tokens", file, "--log-format", "json"]);
  });
  after(() => served.close());

  it("name the principal", async () => {
    await forgingRead(served.url, "reader-secret-0123");
    const entry = JSON.parse(await served.stderrLine(/Mcp-Name/)) as Record<string, unknown>;
    assert.equal(entry.principal, "reader");
  });
});
