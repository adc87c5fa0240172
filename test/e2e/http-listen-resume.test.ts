import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExampleApp } from "../../example/app.ts";
import {
  serveHttp,
  staticTokens,
  type HttpServing,
} from "../../packages/livecmd/runtime/server/index.ts";
import { VERSION_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";
import { tokensFile } from "../helpers/tokensFile.ts";

const ALICE = "alice-secret-0123";
const BOB = "bob-secret-456789";
const show = (id: number) => `app://customers_show/${id}`;
const VERSION = "2026-07-28";

/** A listen's event stream, read as text: what came so far, and more until a pattern shows. */
class Stream {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  text = "";

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  async until(pattern: RegExp): Promise<string> {
    while (!pattern.test(this.text)) {
      const { value, done } = await this.#reader.read();
      assert.ok(!done, `the stream ended before ${pattern}: ${this.text}`);
      this.text += this.#decoder.decode(value, { stream: true });
    }
    return this.text;
  }

  /** The last event id it carried. */
  lastId(): string {
    const ids = [...this.text.matchAll(/^id: (\S+)$/gm)].map((match) => match[1]!);
    assert.ok(ids.length > 0, `no event id: ${this.text}`);
    return ids.at(-1)!;
  }

  /** The client goes away: the server sees the stream end, as when a replica dies under it. */
  cut(): Promise<void> {
    return this.#reader.cancel();
  }
}

const ACK = /notifications\/subscriptions\/acknowledged.*\n\n/;

describe("a 2026-07-28 listen stream resumed with its last event id (GET, Last-Event-ID)", () => {
  let serving: HttpServing;
  let writer: Client;

  before(async () => {
    const file = tokensFile(`${ALICE} customers:write # alice\n${BOB} customers:write # bob\n`);
    serving = await serveHttp(createExampleApp(":memory:"), {
      port: 0,
      auth: staticTokens(file),
    });
    writer = new Client(
      { name: "writer", version: "0" },
      { versionNegotiation: { mode: { pin: VERSION } } },
    );
    await writer.connect(
      new StreamableHTTPClientTransport(serving.url, {
        authProvider: { token: async () => BOB },
      }),
    );
  });

  after(async () => {
    await writer.close();
    await serving.close();
  });

  async function rename(id: number, name: string): Promise<void> {
    const result = await writer.callTool({ name: "customers_rename", arguments: { id, name } });
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
  }

  async function listen(token: string, uris: string[]): Promise<Stream> {
    const response = await fetch(serving.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-method": "subscriptions/listen",
        "mcp-protocol-version": VERSION,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen:1",
        method: "subscriptions/listen",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
          notifications: { resourceSubscriptions: uris },
        },
      }),
    });
    assert.equal(response.status, 200);
    const stream = new Stream(response);
    await stream.until(ACK);
    return stream;
  }

  function resume(token: string, lastEventId: string): Promise<Response> {
    return fetch(serving.url, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: "text/event-stream",
        "mcp-protocol-version": VERSION,
        "last-event-id": lastEventId,
      },
    });
  }

  it("tells the URIs whose result changed while it was cut, not the others, and goes on", async () => {
    const first = await listen(ALICE, [show(1), show(2)]);
    const cutAt = first.lastId();
    await first.cut();
    await rename(1, "Changed while cut");

    const response = await resume(ALICE, cutAt);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const resumed = new Stream(response);
    const opened = await resumed.until(ACK);
    const told = [...opened.matchAll(/"uri":"([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(told, [show(1)]);
    const updated = JSON.parse(/^data: (.*resources\/updated.*)$/m.exec(opened)![1]!);
    const read = await writer.readResource({ uri: show(1) });
    assert.equal(
      updated.params._meta[VERSION_META_KEY],
      read.contents[0]!._meta![VERSION_META_KEY],
      "the update carries the version a read returns",
    );
    // The same listen: the client's subscription id, and both URIs watched again.
    assert.match(
      opened,
      /"resourceSubscriptions":\["app:\/\/customers_show\/1","app:\/\/customers_show\/2"\]/,
    );
    assert.match(opened, /"io.modelcontextprotocol\/subscriptionId":"listen:1"/);

    await rename(2, "Changed after the resumption");
    await resumed.until(/customers_show\/2.*\n\n(id: \S+\n)/);
    // Cut again and resumed from the latest id: it was told of both, so nothing is told now.
    const again = resumed.lastId();
    await resumed.cut();
    const quiet = new Stream(await resume(ALICE, again));
    assert.doesNotMatch(await quiet.until(ACK), /resources\/updated/);
    await quiet.cut();
  });

  it("refuses (405) an id another principal was given, an altered one and a forged one", async () => {
    const stream = await listen(ALICE, [show(3)]);
    const id = stream.lastId();
    await stream.cut();
    const [request, digests, signature] = id.slice("livecmd-listen.".length).split(".");
    const altered = `livecmd-listen.${request}.${"A".repeat(digests!.length)}.${signature}`;
    for (const [token, lastEventId] of [
      [BOB, id],
      [ALICE, altered],
      [ALICE, "livecmd-listen.e30.AAAA.AAAA"],
    ] as const) {
      const response = await resume(token, lastEventId);
      assert.equal(response.status, 405, lastEventId);
      await response.body?.cancel();
    }
    // Without a token the front door answers first, as for any request.
    const anonymous = await fetch(serving.url, {
      headers: { accept: "text/event-stream", "last-event-id": id },
    });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  });

  it("the SDK's client keeps its listen open across a cut and hears what changed meanwhile", async () => {
    const client = new Client(
      { name: "resumer", version: "0" },
      { versionNegotiation: { mode: { pin: VERSION } } },
    );
    const updates: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updates.push(notification.params.uri);
    });
    // The SDK's own transport over a fetch that can cut the listen's stream, as a dying replica does.
    const cuts: AbortController[] = [];
    const cuttable: typeof fetch = (input, init) => {
      const cut = new AbortController();
      cuts.push(cut);
      const signal = init?.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
      return fetch(input, { ...init, signal });
    };
    await client.connect(
      new StreamableHTTPClientTransport(serving.url, {
        fetch: cuttable,
        authProvider: { token: async () => ALICE },
      }),
    );
    const sub = await client.listen({ resourceSubscriptions: [show(4), show(5)] });
    cuts.at(-1)!.abort();
    await rename(4, "Changed while the listen was down");
    // The transport resumes after the stream's retry: (3 s).
    for (let waited = 0; !updates.includes(show(4)) && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(updates, [show(4)]);
    await rename(5, "Told on the resumed stream");
    for (let waited = 0; !updates.includes(show(5)) && waited < 5000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(updates, [show(4), show(5)]);
    await sub.close();
    assert.equal(await sub.closed, "local");
    await client.close();
  });
});
