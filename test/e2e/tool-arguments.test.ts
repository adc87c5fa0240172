import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { testApp } from "../../packages/livecmd/runtime/testing/index.ts";
import {
  bookings_of,
  guest_mail,
  room_bookings,
  room_show,
} from "../fixtures/constraints/app/app.ts";
import catalog from "../fixtures/constraints/expected/catalog.json" with { type: "json" };
import { templates } from "../fixtures/constraints/expected/templates.ts";
import { PROTOCOLS, protocolError } from "./fixtures/protocolErrors.ts";
import { ERROR_META_KEY } from "../../packages/livecmd/runtime/model/resultMeta.ts";

/*
 * docs/mcp.md "Calling tools": one rule for tool arguments, as codegen writes it (the golden
 * fixture's own catalog and parsers) and the server applies it, the same from a URI and a call.
 */

const hotel = () =>
  defineApp({
    name: "hotel",
    commands: { room_show, bookings_of, room_bookings, guest_mail },
    agent: { grant: [room_show, bookings_of, room_bookings, guest_mail] },
    generated: { catalog: catalog as never, templates },
  });

type FieldErrors = { field: string; message: string }[];

/** What the handler received, through a read of `uri` and through a call of `tool` with `args`. */
const sameArguments: { rule: string; uri: string; tool: string; args: object; got: unknown }[] = [
  {
    rule: "a struct whose fields are all optional may be left out of a call as out of its URI: the handler gets {}",
    uri: "hotel://room_bookings/7",
    tool: "room_bookings",
    args: { number: 7 },
    got: { number: 7, stay: {} },
  },
  {
    rule: "a struct parameter among others is an object under its name in a call, its fields variables of their own in a URI",
    uri: "hotel://room_bookings/7?nights=2&first=2026-03-01",
    tool: "room_bookings",
    args: { number: 7, stay: { first: "2026-03-01", nights: 2 } },
    got: { number: 7, stay: { first: "2026-03-01", nights: 2 } },
  },
  {
    rule: "an optional struct parameter left out is undefined on both",
    uri: "hotel://bookings_of/2026-03-01",
    tool: "bookings_of",
    args: { day: "2026-03-01" },
    got: ["2026-03-01", null],
  },
];

/** One mistake in a read's URI and in a call's arguments: the read names the URI's variable, the call the argument's path. */
const namedErrors: {
  rule: string;
  uri: string;
  read: FieldErrors;
  args: object;
  call: FieldErrors;
}[] = [
  {
    rule: "a field the schema refuses",
    uri: "hotel://room_bookings/7?nights=0",
    read: [{ field: "nights", message: "must be at least 1" }],
    args: { number: 7, stay: { nights: 0 } },
    call: [{ field: "stay.nights", message: "must be at least 1" }],
  },
  {
    rule: "a field the parser refuses",
    uri: "hotel://room_bookings/7?nights=two",
    read: [{ field: "nights", message: 'must be an integer like 12; got "two"' }],
    args: { number: 7, stay: { nights: "two" } },
    call: [{ field: "stay.nights", message: "must be an integer" }],
  },
  {
    rule: "a date written YYYY-MM-DD that is not in the calendar",
    uri: "hotel://room_bookings/7?first=2026-02-30",
    read: [
      { field: "first", message: "is not a date in the calendar (February 2026 has 28 days)" },
    ],
    args: { number: 7, stay: { first: "2026-02-30" } },
    call: [
      { field: "stay.first", message: "is not a date in the calendar (February 2026 has 28 days)" },
    ],
  },
];

for (const protocol of PROTOCOLS) {
  describe(`tool arguments, one rule for reads and calls (${protocol})`, () => {
    it("publishes the all-optional struct as an argument a call may leave out, and its examples where a host reads them", async () => {
      const mcp = await testApp(hotel()).mcp({ protocol });
      const tool = (await mcp.tools()).find(({ name }) => name === "room_bookings")!;
      assert.deepEqual(tool.inputSchema.required, ["number"]);
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}), ["number", "stay"]);
      // Its examples (a @param's e.g., a field's @example) reach the template's description.
      const template = (await mcp.templates()).find(({ name }) => name === "room_bookings")!;
      assert.equal(
        template.description,
        "A room's bookings, narrowed to a stay. `number`: e.g. 101; `first`: e.g. 2026-03-01.",
      );
      await mcp.close();
    });

    for (const { rule, uri, tool, args, got } of sameArguments) {
      it(rule, async () => {
        const mcp = await testApp(hotel()).mcp({ protocol });
        const read = await mcp.read(uri);
        const call = await mcp.call(tool, args as Record<string, unknown>);
        assert.equal(call.isError, undefined, JSON.stringify(call.content));
        const text = (result: object) => JSON.parse(String((result as { text?: unknown }).text));
        assert.deepEqual(text(read.contents[0]!), got);
        assert.deepEqual(text(call.content[0]!), got);
        await mcp.close();
      });
    }

    for (const { rule, uri, read, args, call } of namedErrors) {
      it(`names ${rule} by its URI variable on a read, by its argument path on a call`, async () => {
        const mcp = await testApp(hotel()).mcp({ protocol });
        const refused = await protocolError(mcp.read(uri), -32602);
        assert.deepEqual((refused.data as { errors: FieldErrors }).errors, read);
        const called = await mcp.call("room_bookings", args as Record<string, unknown>);
        assert.equal(called.isError, true);
        assert.deepEqual(called._meta?.[ERROR_META_KEY], { errors: call });
        await mcp.close();
      });
    }
  });
}
