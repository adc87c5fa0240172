import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { openExampleDatabase } from "../../example/db.ts";
import { root } from "../helpers/cli.ts";
import { updatesListener, updatesReach } from "../helpers/updatesListener.ts";
import { servedCli, type ServedCli } from "../helpers/servedCli.ts";

const SHOW_1 = "app://customers_show/1";

/** A plain better-sqlite3 script in a process of its own, knowing nothing of livecmd. */
function scriptWrites(file: string, sql: string): void {
  const script = `const Database = require("better-sqlite3"); new Database(process.argv[1]).prepare(process.argv[2]).run();`;
  execFileSync(process.execPath, ["--eval", script, file, sql], { cwd: root });
}

describe("SQLite: writes to the file from other processes reach a watcher in livecmd serve", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "livecmd-sqlite-"));
  const file = path.join(folder, "example.sqlite");
  let a: ServedCli;
  let b: ServedCli;
  let writer: Client;
  let watcher: { client: Client; updates: string[] };

  before(async () => {
    openExampleDatabase(file).close();
    [a, b] = await Promise.all([
      servedCli([], { database: file }),
      servedCli([], { database: file }),
    ]);
    writer = (await updatesListener(a.url, "sqlite-two-processes")).client;
    watcher = await updatesListener(b.url, "sqlite-two-processes");
  });

  after(async () => {
    await writer?.close();
    await watcher?.client.close();
    await Promise.all([a?.close(), b?.close()]);
    rmSync(folder, { recursive: true, force: true });
  });

  test("a tools/call on another serve and a plain script each notify, and a write to another row does not", async () => {
    const listen = await watcher.client.listen({ resourceSubscriptions: [SHOW_1] });
    try {
      const renamed = (await writer.callTool({
        name: "customers_rename",
        arguments: { id: 1, name: "Ada King" },
      })) as CallToolResult;
      assert.equal(renamed.isError, undefined);
      await updatesReach(watcher.updates, 1);

      scriptWrites(file, "UPDATE customers SET name = 'Ada Byron' WHERE id = 1");
      await updatesReach(watcher.updates, 2);

      // Another row, from both writers: nothing owed. A notification owed to these would come
      // before the one of the last write, since the runs of one subscription are in order.
      scriptWrites(file, "UPDATE customers SET name = 'Somebody Else' WHERE id = 500");
      await writer.callTool({ name: "customers_rename", arguments: { id: 501, name: "Another" } });
      scriptWrites(file, "UPDATE customers SET name = 'Ada Lovelace' WHERE id = 1");
      await updatesReach(watcher.updates, 3);
      const shown = await watcher.client.readResource({ uri: SHOW_1 });
      assert.match(JSON.stringify(shown.contents), /Ada Lovelace/);
    } finally {
      await listen.close();
    }
  });
});
