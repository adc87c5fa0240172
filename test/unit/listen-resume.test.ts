import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import type { JSONRPCRequest } from "@modelcontextprotocol/server";
import {
  ListenResumes,
  resumableStream,
} from "../../packages/livecmd/runtime/server/listens/listenResume.ts";
import { notifiedVersion, versionOf } from "../../packages/livecmd/runtime/live/resultVersion.ts";
import { VERSION_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";

const A = "app://customers_show/1";
const B = "app://customers_show/2";

function listenOf(uris: string[]): JSONRPCRequest {
  return {
    jsonrpc: "2.0",
    id: "listen:7",
    method: "subscriptions/listen",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
      notifications: { resourceSubscriptions: uris, toolsListChanged: true },
    },
  };
}

/** The SDK's frames of a listen stream, cut into chunks at arbitrary points. */
function sdkStream(chunks: string[]): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
}

/** The SDK's frame of a `resources/updated`, and with `_meta` as livecmd stamps it. */
const updated = (uri: string, _meta?: Record<string, string>) =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri, ...(_meta && { _meta }) } })}\n\n`;

describe("a listen's resumable event ids", () => {
  const resumes = new ListenResumes("a key of 32 bytes or more, for the test");

  it("carry the listen and what its client was told of each URI, for its principal only", () => {
    const ids = resumes.ids(listenOf([A, B]), "alice");
    ids.told(A, '{"name":"Ada"}');
    ids.told(B, '{"name":"Bob"}');
    const id = ids.current()!;
    const resumed = resumes.resumed(id, "alice")!;
    assert.deepEqual(resumed.message, listenOf([A, B]));
    assert.deepEqual(
      resumed.told,
      new Map([
        [A, resumes.digest('{"name":"Ada"}')],
        [B, resumes.digest('{"name":"Bob"}')],
      ]),
    );
    assert.equal(resumes.resumed(id, "bob"), undefined);
    assert.equal(resumes.resumed(id, undefined), undefined);
    assert.equal(
      new ListenResumes("another key, of 32 bytes or more").resumed(id, "alice"),
      undefined,
    );
    assert.equal(resumes.resumed("livecmd-7", "alice"), undefined);
  });

  it("are taken only whole: a part added after the signature, or one dropped, refuses the id", () => {
    const ids = resumes.ids(listenOf([A]), "alice");
    ids.told(A, "null");
    const id = ids.current()!;
    assert.ok(resumes.resumed(id, "alice"));
    for (const altered of [`${id}.x`, `${id}.`, id.slice(0, id.lastIndexOf("."))])
      assert.equal(resumes.resumed(altered, "alice"), undefined, altered);
  });

  it("are not sent when longer than 4 KiB, too long to come back as a header", () => {
    // Each URI its own (random) search: they do not compress into one another.
    const many = Array.from(
      { length: 64 },
      () => `app://customers_index/${randomBytes(100).toString("hex")}`,
    );
    const ids = resumes.ids(listenOf(many), "alice");
    for (const uri of many) ids.told(uri, "null");
    assert.equal(ids.current(), undefined);
  });

  it("advance after each update is on the stream, its frames whole however the chunks fall", async () => {
    const ids = resumes.ids(listenOf([A, B]), undefined);
    ids.told(A, "old A");
    ids.told(B, "old B");
    const results = new Map([
      [A, "new A"],
      [B, "old B"],
    ]);
    const ack = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}\n\n`;
    const frames = ack + updated(A) + ": keepalive\n\n";
    const cut = [
      frames.slice(0, 50),
      frames.slice(50, ack.length + 30),
      frames.slice(ack.length + 30),
    ];
    const stream = resumableStream(
      sdkStream(cut),
      {
        id: "listen:7",
        ids,
        resultOf: (uri) => results.get(uri),
        versionOf: (uri) => notifiedVersion(results.get(uri)),
      },
      [],
    );
    const text = await stream.text();
    const events = text.split("\n\n").slice(0, -1);
    // Primed with the baseline, then the SDK's frames as they were, the update given the version
    // of what its URI returns now, and an id after it.
    assert.match(events[0]!, /^id: livecmd-listen\.\S+\nretry: 3000\ndata: $/);
    assert.equal(`${events[1]}\n\n`, ack);
    assert.equal(`${events[2]}\n\n`, updated(A, { [VERSION_META_KEY]: versionOf("new A") }));
    assert.match(events[3]!, /^id: livecmd-listen\.\S+\ndata: $/);
    assert.equal(events[4], ": keepalive");
    const baseline = resumes.resumed(/^id: (\S+)/.exec(events[0]!)![1]!, undefined)!;
    const afterUpdate = resumes.resumed(/^id: (\S+)/.exec(events[3]!)![1]!, undefined)!;
    assert.equal(baseline.told.get(A), resumes.digest("old A"));
    assert.equal(afterUpdate.told.get(A), resumes.digest("new A"));
    assert.equal(afterUpdate.told.get(B), resumes.digest("old B"));
  });

  it("tell a resumed listen's changed URIs before anything else, then the id recording them", async () => {
    const ids = resumes.ids(listenOf([A, B]), undefined);
    ids.told(A, "was A");
    ids.told(B, "B");
    const stream = resumableStream(
      sdkStream([]),
      {
        id: "listen:7",
        ids,
        resultOf: (uri) => (uri === A ? "now A" : "B"),
        versionOf: (uri) => (uri === A ? "version of now A" : "version of B"),
      },
      [A],
    );
    const events = (await stream.text()).split("\n\n").slice(0, -1);
    assert.equal(events.length, 2);
    assert.match(events[0]!, /"method":"notifications\/resources\/updated"/);
    assert.match(events[0]!, /"uri":"app:\/\/customers_show\/1"/);
    assert.match(events[0]!, /"io.github.livecmd\/version":"version of now A"/);
    assert.match(events[0]!, /"io.modelcontextprotocol\/subscriptionId":"listen:7"/);
    const id = /^id: (\S+)/.exec(events[1]!)![1]!;
    assert.equal(resumes.resumed(id, undefined)!.told.get(A), resumes.digest("now A"));
  });
});
