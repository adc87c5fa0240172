import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ProtocolError, ResourceNotFoundError, SdkHttpError } from "@modelcontextprotocol/client";
import { templates } from "../../generated/templates.ts";
import { testApp, type McpTestClient } from "../../packages/livecmd/runtime/testing/index.ts";
import {
  countedExampleApp,
  fingerprint,
  plainTextMatches,
  protocolError,
  PROTOCOLS,
  readText,
  type CountedApp,
  type Protocol,
} from "./support/exampleApp.ts";
import { HOSTILE_URIS, type HostileUri } from "./support/hostileUris.ts";

/**
 * Checks one read of a hostile URI against its expected outcome, and that the command ran
 * exactly when the outcome says it must (`runs` is what the app's middleware saw).
 */
async function expectOutcome(
  mcp: McpTestClient,
  { app, runs }: CountedApp,
  { template, uri, outcome }: HostileUri,
): Promise<void> {
  runs.length = 0;
  switch (outcome.kind) {
    case "invalid": {
      const error = await protocolError(mcp.read(uri), -32602);
      const quoted = uri.length <= 200 ? uri : `${uri.slice(0, 200)}… (${uri.length} characters)`;
      assert.ok(error.message.startsWith(`Invalid URI ${quoted}: `), error.message);
      const data = error.data as { uri: string; errors: { field: string; message: string }[] };
      assert.deepEqual(Object.keys(data).sort(), ["errors", "uri"]);
      // data.uri is the URI as sent, cut past 2 KiB: a client cannot make the answer huge.
      const dataUri =
        uri.length <= 2048 ? uri : `${uri.slice(0, 2048)}… (${uri.length} characters)`;
      assert.equal(data.uri, dataUri);
      const fields = data.errors.map((e) => e.field);
      assert.deepEqual([...new Set(fields)].sort(), outcome.fields, JSON.stringify(data.errors));
      const variables = fields.filter((field) => field !== "uri");
      assert.equal(
        new Set(variables).size,
        variables.length,
        `a variable is reported twice: ${JSON.stringify(data.errors)}`,
      );
      for (const e of data.errors)
        assert.ok(e.message.length > 10, `an unhelpful message: ${e.message}`);
      assert.deepEqual(runs, [], "a rejected URI must never reach the command");
      return;
    }
    case "notFound": {
      const error = await protocolError(mcp.read(uri), -32602);
      assert.ok(error instanceof ResourceNotFoundError, error.message);
      assert.deepEqual(error.data, { uri });
      assert.deepEqual(runs, [], "an unknown resource must never reach a command");
      return;
    }
    case "data": {
      const text = readText(await mcp.read(uri));
      assert.deepStrictEqual(runs, [{ command: template, args: outcome.args }]);
      const search = (outcome.args[0] as { search?: unknown } | undefined)?.search;
      // SQLite's LIKE ends a pattern at NUL (a limit of the example's SQL, see the report), so
      // only NUL-free searches are checked against plain substring matching.
      if (
        template === "customers_index" &&
        typeof search === "string" &&
        !search.includes("\u0000")
      ) {
        assert.equal(
          (JSON.parse(text) as { total: number }).total,
          plainTextMatches(app, search),
          "the search must match its text literally",
        );
      }
      return;
    }
    case "handlerRefuses": {
      const error = await protocolError(mcp.read(uri), -32602);
      const { errors } = error.data as { errors: { field: string }[] };
      assert.deepStrictEqual(errors.map((fieldError) => fieldError.field).sort(), outcome.fields);
      assert.deepStrictEqual(runs, [{ command: template, args: outcome.args }]);
      return;
    }
    case "handlerFails": {
      const error = await protocolError(mcp.read(uri), -32603);
      assert.match(error.message, outcome.message);
      assert.equal(error.data, undefined, "only the message crosses the wire");
      assert.deepStrictEqual(runs, [{ command: template, args: outcome.args }]);
      return;
    }
  }
}

describe("the hostile URI table", () => {
  it("has at least 60 distinct URIs spread over every template of the example, each outcome represented", () => {
    const uris = HOSTILE_URIS.map((entry) => entry.uri);
    assert.equal(new Set(uris).size, uris.length, "every URI is distinct");
    assert.ok(uris.length >= 60, `${uris.length} URIs`);
    for (const template of Object.keys(templates)) {
      assert.ok(
        HOSTILE_URIS.filter((entry) => entry.template === template).length >= 8,
        `${template} has few cases`,
      );
    }
    for (const kind of ["invalid", "notFound", "data", "handlerRefuses", "handlerFails"]) {
      assert.ok(
        HOSTILE_URIS.some((entry) => entry.outcome.kind === kind),
        kind,
      );
    }
  });

  it("names only fields the template has", () => {
    for (const { template, uri, outcome } of HOSTILE_URIS) {
      if (outcome.kind !== "invalid") continue;
      const names = new Set([
        "uri",
        ...templates[template].variables.map((variable) => variable.name),
      ]);
      for (const field of outcome.fields) assert.ok(names.has(field), `${uri}: ${field}`);
    }
  });
});

for (const protocol of PROTOCOLS) {
  describe(`bad input over MCP (${protocol}, in memory)`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    let before_: Record<string, string>;
    before(async () => {
      before_ = fingerprint(counted.app);
      mcp = await testApp(counted.app).mcp({ protocol });
    });
    after(() => mcp.close());

    for (const entry of HOSTILE_URIS) {
      it(`${entry.template}: ${entry.rule} (${entry.outcome.kind})`, () =>
        expectOutcome(mcp, counted, entry));
    }

    it("leaves the database exactly as it was, and keeps serving", async () => {
      assert.deepEqual(fingerprint(counted.app), before_);
      const customer = JSON.parse(readText(await mcp.read("app://customers_show/1"))) as {
        name: string;
      };
      assert.equal(customer.name, "Ada Lovelace");
    });
  });
}

/** What depends on the wire: raw control and non-ASCII characters, surrogates, long URIs, escapes of NUL. */
function wireSensitive({ uri }: HostileUri): boolean {
  return uri.length > 2000 || /[^\x21-\x7e]|%00/.test(uri);
}

/**
 * What Streamable HTTP refuses on 2026-07-28 before livecmd sees the request. The SDK's client
 * repeats `params.uri` in an `Mcp-Name` header, and its server checks that header against the
 * body: a URI with an unpaired surrogate cannot survive the header's encoding (-32020, header
 * mismatch), and one over Node's 16 KiB header limit is refused with HTTP 431. Either way the
 * command never runs; the client just gets a transport error instead of livecmd's -32602.
 */
function refusedByTransport(
  protocol: Protocol,
  uri: string,
): "header mismatch" | "header too large" | undefined {
  if (protocol !== "2026-07-28") return undefined;
  if (/\p{Cs}/u.test(uri)) return "header mismatch";
  if (uri.length > 16 * 1024) return "header too large";
  return undefined;
}

async function expectTransportRefusal(
  mcp: McpTestClient,
  { runs }: CountedApp,
  uri: string,
  refusal: "header mismatch" | "header too large",
): Promise<void> {
  runs.length = 0;
  const error = await mcp.read(uri).then(
    () => assert.fail("expected the transport to refuse the request"),
    (failure: unknown) => failure,
  );
  if (refusal === "header mismatch") {
    assert.ok(error instanceof ProtocolError && error.code === -32020, String(error));
    assert.match(error.message, /Mcp-Name header/);
  } else {
    assert.ok(error instanceof SdkHttpError, String(error));
    assert.equal((error.data as { status?: number }).status, 431);
  }
  assert.deepEqual(runs, [], "a refused request must never reach the command");
}

const overHttp: [protocol: Protocol, entries: HostileUri[]][] = [
  ["2026-07-28", HOSTILE_URIS],
  ["2025-11-25", HOSTILE_URIS.filter(wireSensitive)],
];

for (const [protocol, entries] of overHttp) {
  describe(`bad input over Streamable HTTP (${protocol}, ${entries === HOSTILE_URIS ? "every URI" : "the wire-sensitive URIs"})`, () => {
    const counted = countedExampleApp();
    let mcp: McpTestClient;
    before(async () => {
      mcp = await testApp(counted.app).mcp({ protocol, transport: "http" });
    });
    after(() => mcp.close());

    it(`answers ${entries.length} hostile URIs as in memory, except what the SDK's HTTP transport refuses first`, async () => {
      assert.ok(entries.length >= 20, `${entries.length} URIs`);
      const before_ = fingerprint(counted.app);
      const failures: string[] = [];
      for (const entry of entries) {
        const refusal = refusedByTransport(protocol, entry.uri);
        const checked = refusal
          ? expectTransportRefusal(mcp, counted, entry.uri, refusal)
          : expectOutcome(mcp, counted, entry);
        await checked.catch((error: Error) =>
          failures.push(`${entry.uri.slice(0, 80)} (${entry.rule}): ${error.message}`),
        );
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(fingerprint(counted.app), before_);
      assert.equal(
        JSON.parse(readText(await mcp.read("app://customers_show/2"))).name,
        "Grace Hopper",
        "the server keeps serving",
      );
    });
  });
}
