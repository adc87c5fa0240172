import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { Server, type JSONRPCRequest } from "@modelcontextprotocol/server";
import type { RelayedAnswer } from "../../packages/livecmd/runtime/db/sharedState.ts";
import {
  MAX_RELAYED_ANSWER,
  SessionAnswers,
} from "../../packages/livecmd/runtime/server/sessions/sessionAnswers.ts";

/**
 * One replica's copy of a shared 2025 session: an SDK instance on its own transport, opened by an
 * `initialize`; `wire` is the client's end, where the copy's requests arrive and answers are sent.
 */
async function copy(relay: (answer: RelayedAnswer) => void) {
  const [wire, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: "copy", version: "1.0.0" }, { capabilities: {} });
  const answers = new SessionAnswers(serverSide, relay);
  await server.connect(serverSide);
  answers.takeAnswers();
  const arrived: JSONRPCMessage[] = [];
  wire.onmessage = (message) => void arrived.push(message);
  await wire.start();
  await wire.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "raw", version: "0" },
    },
  });
  await wire.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  /** The next request the copy sent its client. */
  const request = async () => {
    for (let waited = 0; waited < 100; waited++) {
      const found = arrived.findIndex((message) => "method" in message && "id" in message);
      if (found >= 0) return arrived.splice(found, 1)[0] as JSONRPCRequest;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return assert.fail("the copy sent no request");
  };
  return { server, wire, answers, request };
}

/** Two replicas' copies of one session, whose relays reach each other (the NOTIFY channel). */
async function twoCopies() {
  const relayed: RelayedAnswer[] = [];
  const copies: Awaited<ReturnType<typeof copy>>[] = [];
  const relay = (answer: RelayedAnswer) => {
    relayed.push(answer);
    for (const each of copies) each.answers.deliver(answer);
  };
  copies.push(await copy(relay), await copy(relay));
  return { x: copies[0]!, y: copies[1]!, relayed };
}

const ASK = {
  method: "elicitation/create",
  params: { mode: "form", message: "Sure?", requestedSchema: { type: "object", properties: {} } },
} as const;

describe("a shared session's answers reach the copy that asked, on whichever replica they arrive", () => {
  it("each copy's requests carry ids of its own, so two copies' first requests are told apart", async () => {
    const { x, y } = await twoCopies();
    void x.server.request(ASK).catch(() => undefined);
    void y.server.request(ASK).catch(() => undefined);
    const [asked, alsoAsked] = [await x.request(), await y.request()];
    assert.match(String(asked.id), /^[0-9a-f-]{36}\/0$/);
    assert.match(String(alsoAsked.id), /^[0-9a-f-]{36}\/0$/);
    assert.notEqual(asked.id, alsoAsked.id);
  });

  it("an answer sent to the other replica is relayed to the copy that asked, which takes it once", async () => {
    const { x, y, relayed } = await twoCopies();
    const answered = x.server.request(ASK);
    const asked = await x.request();
    await y.wire.send({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: {} } });
    assert.deepEqual(await answered, { action: "accept", content: {} });
    assert.equal(relayed.length, 1);
  });

  it("an answer sent to the replica that asked is taken there, and relayed nowhere", async () => {
    const { x, relayed } = await twoCopies();
    const answered = x.server.request(ASK);
    const asked = await x.request();
    await x.wire.send({ jsonrpc: "2.0", id: asked.id, result: { action: "decline" } });
    assert.deepEqual(await answered, { action: "decline" });
    assert.deepEqual(relayed, []);
  });

  it(`an answer too long to relay (over ${MAX_RELAYED_ANSWER} bytes) ends the request with an error saying so`, async () => {
    const { x, y } = await twoCopies();
    const answered = x.server.request(ASK);
    const asked = await x.request();
    const huge = { action: "accept", content: { note: "x".repeat(10_000) } };
    await y.wire.send({ jsonrpc: "2.0", id: asked.id, result: huge });
    await assert.rejects(
      answered,
      /the answer is \d+ bytes, more than the 7000 one replica relays to another/,
    );
  });
});
