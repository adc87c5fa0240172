import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TypedClient, type ResourceUri } from "../../packages/livecmd/runtime/client/index.ts";
import { int } from "../../packages/livecmd/runtime/uri/int.ts";
import { uris, type CustomersShowResult } from "../../generated/uris.ts";
import { servedExample, type Era, type Transport } from "../helpers/servedExample.ts";

const ERAS: Era[] = ["2026-07-28", "2025-11-25"];
const TRANSPORTS: Transport[] = ["stdio", "http"];

/** Values as a watcher is handed them, and a way to wait for the next. */
function recorder<T>(): { values: T[]; onChange(value: T): void; next(): Promise<T> } {
  const values: T[] = [];
  let waiting: ((value: T) => void) | undefined;
  return {
    values,
    onChange(value) {
      values.push(value);
      waiting?.(value);
      waiting = undefined;
    },
    next: () =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no new value within 5 s")), 5000);
        waiting = (value) => {
          clearTimeout(timer);
          resolve(value);
        };
      }),
  };
}

for (const era of ERAS) {
  for (const transport of TRANSPORTS) {
    describe(`livecmd/client against livecmd serve (${era}, ${transport})`, () => {
      it("reads a value with its version, the one a change replaces", async () => {
        const served = await servedExample(era, transport);
        try {
          const typed = new TypedClient(served.client);
          const uri = uris.customers_show({ id: int(1) });
          const first = await typed.readVersioned(uri);
          const name: string = first.value.name;
          assert.equal(name, "Ada Lovelace");
          assert.match(first.version, /^[A-Za-z0-9_-]{22}$/);
          assert.equal((await typed.readVersioned(uri)).version, first.version, "unchanged");
          await served.client.callTool({
            name: "customers_rename",
            arguments: { id: 1, name: "Ada King" },
          });
          const renamed = await typed.readVersioned(uri);
          assert.equal(renamed.value.name, "Ada King");
          assert.notEqual(renamed.version, first.version);
        } finally {
          await served.close();
        }
      });

      it("reads a uris.* URI as its template's result type", async () => {
        const served = await servedExample(era, transport);
        try {
          const typed = new TypedClient(served.client);
          const customer = await typed.read(uris.customers_show({ id: int(1) }));
          // Each of these compiles only because the value is a CustomersShowResult, not unknown.
          const name: string = customer.name;
          const orders: number = customer.order_count;
          const tags: string[] = customer.tags;
          assert.equal(name, "Ada Lovelace");
          assert.ok(Number.isInteger(orders));
          assert.ok(Array.isArray(tags));
          // @ts-expect-error: a customer has no field "nmae"
          assert.equal(customer.nmae, undefined);
          // @ts-expect-error: a customer's name is a string, not a number
          const wrong: number = customer.name;
          assert.equal(typeof wrong, "string");

          const page = await typed.read(uris.customers_index({ per_page: int(2) }));
          assert.deepEqual(
            page.customers.map((listed) => listed.id),
            [1, 2],
          );
          const orders2025 = await typed.read(
            uris.orders_between({ from: "2025-01-01", to: "2025-12-31", status: "paid" }),
          );
          assert.ok(orders2025.every((order) => order.status === "paid"));

          const untyped = await typed.read("app://customers_show/1");
          // @ts-expect-error: a plain string reads as unknown
          assert.equal(untyped.name, "Ada Lovelace");
        } finally {
          await served.close();
        }
      });

      it("watches a uris.* URI: its value now, then again after each change, until closed", async () => {
        const served = await servedExample(era, transport);
        try {
          const typed = new TypedClient(served.client);
          const uri = uris.customers_show({ id: int(2) });
          const first = recorder<CustomersShowResult>();
          const watch = await typed.watch(uri, first.onChange);
          assert.deepEqual(
            first.values.map((customer) => customer.name),
            ["Grace Hopper"],
          );

          const renamed = first.next();
          await served.client.callTool({
            name: "customers_rename",
            arguments: { id: 2, name: "Grace B. Hopper" },
          });
          assert.equal((await renamed).name, "Grace B. Hopper");

          await watch.close();
          const second = recorder<CustomersShowResult>();
          const again = await typed.watch(uri, second.onChange);
          const renamedAgain = second.next();
          await served.client.callTool({
            name: "customers_rename",
            arguments: { id: 2, name: "Rear Admiral Hopper" },
          });
          assert.equal((await renamedAgain).name, "Rear Admiral Hopper");
          await again.close();
          // The closed watch was handed nothing after it closed.
          assert.deepEqual(
            first.values.map((customer) => customer.name),
            ["Grace Hopper", "Grace B. Hopper"],
          );
        } finally {
          await served.close();
        }
      });

      it("reads once for two updates when that read already returned the version the second tells of", async () => {
        const served = await servedExample(era, transport);
        try {
          const typed = new TypedClient(served.client);
          const wire = served.client.transport!;
          let reads = 0;
          const send = wire.send.bind(wire);
          wire.send = (message, options) => {
            if ("method" in message && message.method === "resources/read") reads += 1;
            return send(message, options);
          };
          // Updates are held back here, and handed to the client one at a time.
          const held: Parameters<NonNullable<typeof wire.onmessage>>[] = [];
          const deliver = wire.onmessage!;
          wire.onmessage = (message, extra) => {
            if ("method" in message && message.method === "notifications/resources/updated")
              held.push([message, extra]);
            else deliver(message, extra);
          };
          const rename = async (name: string, updates: number) => {
            await served.client.callTool({ name: "customers_rename", arguments: { id: 3, name } });
            while (held.length < updates) await new Promise((resolve) => setTimeout(resolve, 10));
          };

          const seen = recorder<CustomersShowResult>();
          const watch = await typed.watch(uris.customers_show({ id: int(3) }), seen.onChange);
          assert.equal(reads, 1, "the first value");
          await rename("First rename", 1);
          await rename("Second rename", 2);
          const next = seen.next();
          deliver(...held.shift()!);
          assert.equal((await next).name, "Second rename", "read after both writes");
          deliver(...held.shift()!);
          // A read the update started would be sent before this call.
          await served.client.callTool({ name: "customers_show", arguments: { id: 1 } });
          assert.equal(reads, 2, "the second update tells the version already read: no read");
          assert.deepEqual(
            seen.values.map((customer) => customer.name),
            [seen.values[0]!.name, "Second rename"],
          );
          await watch.close();
        } finally {
          await served.close();
        }
      });

      it("refuses to watch a URI the server will not watch", async () => {
        const served = await servedExample(era, transport);
        try {
          const typed = new TypedClient(served.client);
          await assert.rejects(typed.watch("app://customers_nowhere/1", () => {}));
        } finally {
          await served.close();
        }
      });
    });
  }
}

describe("ResourceUri", () => {
  it("is a string wherever a string is expected, and a plain string is not one", () => {
    const uri = uris.customers_show({ id: int(3) });
    const text: string = uri;
    assert.equal(text, "app://customers_show/3");
    // @ts-expect-error: a plain string carries no result type
    const forged: ResourceUri<CustomersShowResult> = "app://customers_show/3";
    assert.equal(forged, text);
  });
});
