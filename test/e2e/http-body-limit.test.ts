import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/server";
import { createExampleApp } from "../../example/app.ts";
import { serveHttp, type HttpServing } from "../../packages/livecmd/runtime/server/index.ts";

const BODY = 5 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");

/**
 * A POST of `BODY` bytes of declared length, sent in full the way a client that reads only
 * once it has sent does: what it read back, or the error that cut it off.
 */
function oversizedPost(url: URL): Promise<{ answer: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ error: `${error.code ?? error.message} after ${answer.length} bytes read` }),
    );
    socket.on("end", () => resolve({ answer }));
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: ${BODY}\r\n\r\n`,
    );
    let sent = 0;
    const send = () => {
      while (sent < BODY && !socket.destroyed) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) return void socket.once("drain", send);
      }
    };
    send();
  });
}

describe("a body over the limit of declared length", () => {
  let serving: HttpServing;
  before(async () => {
    serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
  });
  after(() => serving.close());

  it("is answered 413 with its one-line JSON-RPC error every time, never a reset while the client sends", async () => {
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const outcome = await oversizedPost(serving.url);
      if ("error" in outcome) {
        outcomes.push(outcome.error);
        continue;
      }
      const [head, body] = outcome.answer.split("\r\n\r\n");
      assert.match(head!, /^HTTP\/1\.1 413 /);
      assert.match(head!, /\r\nconnection: close\r\n/i);
      assert.equal(body!.includes("\n"), false);
      assert.deepEqual(JSON.parse(body!), {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message: `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`,
        },
      });
      outcomes.push("413");
    }
    assert.deepEqual(
      outcomes.filter((outcome) => outcome !== "413"),
      [],
      `413s read: ${outcomes.filter((outcome) => outcome === "413").length} of ${outcomes.length}`,
    );
  });
});
