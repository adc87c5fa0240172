import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";
import { request } from "node:http";
import { initialize, sessionRequest } from "../helpers/rawStreams.ts";

const SHOW_1 = "app://customers_show/1";

/** The id of the priming event a fresh stream opens with. */
async function primingId(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const first = new TextDecoder().decode((await reader.read()).value);
  const id = /^id: (\S+)\nretry: 3000\ndata: \n\n/.exec(first)?.[1];
  assert.ok(id, `no priming event: ${first}`);
  return id;
}

/** A resumed GET stream read over node:http until `until` shows up: its status line and events. */
function firstEvents(
  url: URL,
  session: string,
  lastEventId: string,
  until: RegExp,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        headers: {
          accept: "text/event-stream",
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-11-25",
          "last-event-id": lastEventId,
        },
      },
      (response) => {
        let text = `${response.statusCode}\n`;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
          if (until.test(text)) {
            response.destroy();
            resolve(text);
          }
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

async function answered(response: Promise<Response>): Promise<string> {
  const text = await (await response).text();
  assert.doesNotMatch(text, /"error"/, text);
  return text;
}

describe("a 2025-era GET stream that drops", () => {
  let serving: HttpServing;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
  });
  after(() => serving.close());

  it("reconnects at once with Last-Event-ID and is sent the update it missed", async () => {
    const { session } = await initialize(serving.url);
    await answered(
      sessionRequest(serving.url, session!, {
        id: 2,
        method: "resources/subscribe",
        params: { uri: SHOW_1 },
      }),
    );
    const dropping = new AbortController();
    const first = await fetch(serving.url, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": session!,
        "mcp-protocol-version": "2025-11-25",
      },
      signal: dropping.signal,
    });
    const lastEventId = await primingId(first.body!.getReader());
    dropping.abort();

    await answered(
      sessionRequest(serving.url, session!, {
        id: 3,
        method: "tools/call",
        params: { name: "customers_rename", arguments: { id: 1, name: "Ada King" } },
      }),
    );
    await serving.live.settled();

    const text = await firstEvents(serving.url, session!, lastEventId, /resources\/updated/);
    assert.match(
      text,
      /id: \S+\ndata: \{"jsonrpc":"2\.0","method":"notifications\/resources\/updated","params":\{"uri":"app:\/\/customers_show\/1","_meta":\{"io\.github\.livecmd\/version":"[\w-]{22}"\}\}\}/,
    );
  });
});
