import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import type { McpTestClient } from "../../../packages/livecmd/runtime/testing/index.ts";

export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Records the JSON-RPC error responses exactly as they arrive at the client's transport, before
 * the SDK turns them into exceptions, so that answers can be compared byte for byte.
 */
export class WireErrors {
  readonly #errors = new Map<string | number, WireError>();

  constructor(mcp: McpTestClient) {
    const transport = mcp.client.transport;
    assert.ok(transport?.onmessage, "the client must be connected");
    const deliver = transport.onmessage.bind(transport);
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      if ("error" in message && message.id !== undefined)
        this.#errors.set(message.id, message.error as WireError);
      (deliver as (message: JSONRPCMessage, extra?: unknown) => void)(message, extra);
    };
  }

  /**
   * The error `request` failed with, as serialized on the wire, with every occurrence of
   * `name` (the URI or name the request carried) replaced by `<name>`.
   */
  async of(request: Promise<unknown>, name: string): Promise<string> {
    const before = new Set(this.#errors.keys());
    await request.then(
      () => assert.fail(`expected an error for ${name}`),
      () => undefined,
    );
    const fresh = [...this.#errors].filter(([id]) => !before.has(id));
    assert.equal(fresh.length, 1, `one error response for ${name}`);
    return JSON.stringify(fresh[0]![1]).replaceAll(name, "<name>");
  }
}
