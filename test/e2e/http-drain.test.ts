import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { createExampleApp } from "../../example/app.ts";
import { mcpHandler, serveHttp } from "../../packages/livecmd/runtime/server/index.ts";
import { INITIALIZE } from "../helpers/rawStreams.ts";

describe("a shutdown drains the requests whose body is still coming", () => {
  it("a POST whose headers came before close() and whose body comes after is answered, not refused 503", async () => {
    const mcp = mcpHandler(createExampleApp(":memory:"));
    const server = createServer((request, response) => void mcp.node(request, response));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      const socket = connect(port, "127.0.0.1");
      const answer = readAll(socket);
      const half = INITIALIZE.length >> 1;
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\n` +
          `Connection: close\r\n\r\n${INITIALIZE.slice(0, half)}`,
      );
      await (once(server, "request") as Promise<[IncomingMessage]>);
      const closing = mcp.close({ drainMs: 5_000 });
      // Long enough for a drain that counts nothing in progress to have closed the endpoint.
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write(INITIALIZE.slice(half));
      const [head, body] = (await answer).split("\r\n\r\n");
      assert.match(head!, /^HTTP\/1\.1 200 /, `${head}\n\n${body}`);
      assert.match(body!, /"protocolVersion":"2025-11-25"/);
      await closing;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe("serveHttp's drain serves what the connections it accepted bring", () => {
  it("a connection accepted before close() whose request comes after is answered, not refused 503, and closed after", async () => {
    const serving = await serveHttp(createExampleApp(":memory:"), { port: 0 });
    const { port } = serving.url;
    const socket = connect(Number(port), "127.0.0.1");
    const answer = readAll(socket);
    // The first line alone: the server has begun a request it cannot hand over yet, as with a
    // balancer's request still on its way when the replica stops listening.
    socket.write("POST /mcp HTTP/1.1\r\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = serving.close({ drainMs: 5_000 });
    // Long enough for a drain that waits for nothing it accepted to have closed the endpoint.
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(
      `Host: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\n\r\n${INITIALIZE}`,
    );
    const [head, body] = (await answer).split("\r\n\r\n");
    assert.match(head!, /^HTTP\/1\.1 200 /, `${head}\n\n${body}`);
    assert.match(
      head!,
      /\r\nconnection: close\r\n/i,
      "the drain ends each connection after its answer",
    );
    assert.match(body!, /"protocolVersion":"2025-11-25"/);
    await closing;
  });
});

/** Everything the server sends on `socket` until it closes it. */
async function readAll(socket: ReturnType<typeof connect>): Promise<string> {
  let text = "";
  socket.setEncoding("utf8");
  for await (const chunk of socket) text += chunk as string;
  return text;
}
