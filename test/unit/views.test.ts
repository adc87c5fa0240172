import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as customers from "../../example/commands/customers.ts";
import * as orders from "../../example/commands/orders.ts";
import catalog from "../../generated/catalog.json" with { type: "json" };
import deskCatalog from "../fixtures/views/expected/catalog.json" with { type: "json" };
import { defineApp } from "../../packages/livecmd/runtime/model/app.ts";
import { engineOf } from "../../packages/livecmd/runtime/model/attachedEngine.ts";
import { callUri } from "../../packages/livecmd/runtime/model/callUri.ts";
import type { Catalog, CommandEntry } from "../../packages/livecmd/runtime/model/catalog.ts";
import { command } from "../../packages/livecmd/runtime/model/command.ts";
import { catalogDrift } from "../../packages/livecmd/runtime/server/policy/catalogDrift.ts";
import {
  rendersViews,
  VIEW_EXTENSION_ID,
} from "../../packages/livecmd/runtime/model/viewResource.ts";

const recorded = catalog as unknown as Catalog;
/** The `views` fixture's catalog: `queue_tickets(queue, filter: TicketFilter)`. */
const desk = deskCatalog as unknown as Catalog;
const entry = (name: string) => recorded.commands.find((each) => each.name === name)!;

describe("the URI a call reads, told to its view", () => {
  const cases: [string, CommandEntry, Record<string, unknown>, string | undefined][] = [
    ["a path variable", entry("customers_show"), { id: 12 }, "app://customers_show/12"],
    [
      "path variables, an optional one left out",
      entry("orders_between"),
      { from: "2025-01-01", to: "2025-01-31" },
      "app://orders_between/2025-01-01/2025-01-31",
    ],
    [
      "a query variable, encoded as the template's builder does",
      entry("orders_between"),
      { from: "a b", to: "c/d", status: "paid" },
      "app://orders_between/a%20b/c%2Fd?status=paid",
    ],
    [
      "the object a command takes holds its variables",
      entry("customers_index"),
      { search: "ada", page: 2 },
      "app://customers_index?page=2&search=ada",
    ],
    [
      "a struct argument's fields are variables of their own names",
      desk.commands.find((each) => each.name === "queue_tickets")!,
      { queue: "billing", filter: { team: "north", status: "open" } },
      "desk://queue_tickets/billing?status=open&team=north",
    ],
    ["no arguments: the plain resource", entry("customers_index"), {}, "app://customers_index"],
    [
      "a value no URI variable holds: none",
      entry("orders_between"),
      { from: "a", to: "b", status: ["paid"] },
      undefined,
    ],
    [
      "a command with neither template nor resource: none",
      entry("customers_tagged"),
      {},
      undefined,
    ],
  ];
  for (const [rule, command, values, expected] of cases)
    it(rule, () => assert.equal(callUri(command, values), expected));
});

describe("catalog drift of a view", () => {
  const cases: [string, Partial<Parameters<typeof command>[0]>, string | undefined][] = [
    ["agrees with the catalog codegen wrote", { view: true }, undefined],
    [
      "is dropped in the app since codegen",
      { view: false },
      "customers_show has no view in the app, livecmd's view in catalog.json",
    ],
    [
      "is the app's own page in the app since codegen",
      { view: { html: "./card.html" } },
      "customers_show has its own page in the app, livecmd's view in catalog.json",
    ],
  ];
  for (const [rule, options, expected] of cases)
    it(rule, () => {
      const changed = command(
        { ...customers.customers_show.options, ...options },
        customers.customers_show.handler,
      );
      const app = defineApp({
        name: "app",
        commands: { ...customers, ...orders, customers_show: changed },
        agent: { grant: [] },
      });
      const drift = catalogDrift(engineOf(app), recorded).filter((line) => line.includes(" view"));
      assert.deepEqual(drift, expected === undefined ? [] : [expected]);
    });
});

describe("which clients are listed views", () => {
  const cases: [string, { extensions?: Record<string, unknown> } | undefined, boolean][] = [
    ["a client that declared nothing", undefined, false],
    ["a client that declared no extension", {}, false],
    ["a client that declared other extensions", { extensions: { "io.example/x": {} } }, false],
    [
      "a client that declared MCP Apps without MIME types",
      { extensions: { [VIEW_EXTENSION_ID]: {} } },
      true,
    ],
    [
      "a client that renders this MIME type",
      { extensions: { [VIEW_EXTENSION_ID]: { mimeTypes: ["text/html;profile=mcp-app"] } } },
      true,
    ],
    [
      "a client that renders other MIME types only",
      { extensions: { [VIEW_EXTENSION_ID]: { mimeTypes: ["text/html"] } } },
      false,
    ],
    [
      "a client whose declaration is not an object",
      { extensions: { [VIEW_EXTENSION_ID]: true } },
      false,
    ],
  ];
  for (const [rule, capabilities, listed] of cases)
    it(`${rule}: ${listed ? "listed" : "not listed"}`, () => {
      assert.equal(rendersViews(capabilities), listed);
    });
});
