import assert from "node:assert/strict";
import { SUBSCRIPTION_ID_META_KEY, type JSONRPCMessage } from "@modelcontextprotocol/client";
import type { McpTestClient } from "../../../packages/livecmd/runtime/testing/index.ts";

/**
 * Records the `notifications/subscriptions/acknowledged` of 2026-07-28 listens exactly as they
 * arrive at the client's transport, so that two listens' acknowledgements can be compared byte
 * for byte (but for their subscription ids, which differ by construction).
 */
export class WireAcks {
  readonly #acks: string[] = [];

  constructor(mcp: McpTestClient) {
    const transport = mcp.client.transport;
    assert.ok(transport?.onmessage, "the client must be connected");
    const deliver = transport.onmessage.bind(transport);
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      if ("method" in message && message.method === "notifications/subscriptions/acknowledged") {
        const id = (message.params?._meta as Record<string, unknown> | undefined)?.[
          SUBSCRIPTION_ID_META_KEY
        ];
        assert.equal(typeof id, "string");
        this.#acks.push(JSON.stringify(message).replaceAll(JSON.stringify(id), '"<id>"'));
      }
      (deliver as (message: JSONRPCMessage, extra?: unknown) => void)(message, extra);
    };
  }

  /** The acknowledgements that arrived while `opening` ran, as serialized on the wire. */
  async of<T>(opening: () => Promise<T>): Promise<{ result: T; acks: string[] }> {
    const before = this.#acks.length;
    const result = await opening();
    return { result, acks: this.#acks.slice(before) };
  }
}
