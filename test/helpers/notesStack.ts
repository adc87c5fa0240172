import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { App } from "../../packages/livecmd/runtime/index.ts";
import { testApp, type ProtocolVersion } from "../../packages/livecmd/runtime/testing/index.ts";
import { inspectCost } from "../../packages/livecmd-kit/cli/inspectCost.ts";
import { inspectReads } from "../../packages/livecmd-kit/cli/inspectReads.ts";
import { root } from "./cli.ts";
import { psql } from "./postgres.ts";

/**
 * What the notes apps of examples/ (Drizzle, Kysely, Prisma) are held to: their commands read and
 * write through the library on the handle the app gave livecmd, and a watched note is told of
 * every write that changes it, whoever makes it, and of no other.
 */
export interface NotesStack {
  readonly app: App;
  /** A write by someone who is not the app: another process (SQLite), `psql` (PostgreSQL). */
  writeElsewhere(sql: string): void;
}

/** A plain better-sqlite3 script in a process of its own, knowing nothing of livecmd. */
export function anotherProcess(file: string): (sql: string) => void {
  const script = `const Database = require("better-sqlite3"); new Database(process.argv[1]).prepare(process.argv[2]).run();`;
  return (sql) => execFileSync(process.execPath, ["--eval", script, file, sql], { cwd: root });
}

/** `psql` on `url`, a client of its own. */
export function psqlOn(url: string): (sql: string) => void {
  return (sql) => void psql(url, sql);
}

export const ERAS: readonly ProtocolVersion[] = ["2026-07-28", "2025-11-25"];

function structured<T>(result: CallToolResult): T {
  assert.ok(!result.isError, JSON.stringify(result.content));
  return (result.structuredContent as { result?: T }).result ?? (result.structuredContent as T);
}

/**
 * On `protocol`: a note and its author's list are watched; a rename through the library (a tool
 * call), an update through `ctx.db` and one from elsewhere each notify both; a write to another
 * author's note re-runs nothing.
 */
export async function watchedNotes(stack: NotesStack, protocol: ProtocolVersion): Promise<void> {
  const { app, writeElsewhere } = stack;
  const mcp = await testApp(app).mcp({ protocol });
  try {
    const call = async <T>(tool: string, args: Record<string, unknown>) =>
      structured<T>(await mcp.call(tool, args));
    const ada = await call<{ id: number }>("authors_create", { name: "Ada" });
    const bob = await call<{ id: number }>("authors_create", { name: "Bob" });
    const mine = await call<{ id: number }>("notes_create", { author_id: ada.id, title: "one" });
    await call("notes_create", { author_id: ada.id, title: "two" });
    const theirs = await call<{ id: number }>("notes_create", { author_id: bob.id, title: "x" });
    const show = `notes://notes_show/${mine.id}`;
    const list = `notes://notes_by_author/${ada.id}`;
    assert.match(JSON.stringify(await mcp.read(show)), /one/);
    const listening = await mcp.listen([show, list]);
    assert.deepEqual(listening.honored, [show, list]);
    assert.deepEqual(mcp.live.unseen(), [], "every read went through the handle livecmd was given");
    const inspected: string[] = [];
    await inspectReads(app, [show], (line) => inspected.push(line));
    // By the key as SQL spells it: SQLite's rowid a number, PostgreSQL's feed text a literal.
    assert.match(
      inspected[1]!,
      new RegExp(`^ {2}notes {2}by (rowid = ${mine.id}|id = '${mine.id}')$`),
    );
    const both = async () =>
      [await listening.updates.next(), await listening.updates.next()].sort();

    await call("notes_rename", { id: mine.id, title: "first" });
    assert.deepEqual(await both(), [list, show], "a write through the library");
    await app.db.run("UPDATE notes SET title = ? WHERE id = ?", "uno", mine.id);
    assert.deepEqual(await both(), [list, show], "a write through ctx.db");
    writeElsewhere(`UPDATE notes SET title = 'eins' WHERE id = ${mine.id}`);
    assert.deepEqual(await both(), [list, show], "a write from elsewhere");

    await mcp.live.settled();
    const before = mcp.live.stats().reruns;
    await call("notes_rename", { id: theirs.id, title: "y" });
    await app.db.run("UPDATE notes SET title = 'z' WHERE id = ?", theirs.id);
    writeElsewhere(`UPDATE notes SET title = 'w' WHERE id = ${theirs.id}`);
    await mcp.live.settled();
    assert.equal(
      mcp.live.stats().reruns,
      before,
      "a write to another author's note re-runs nothing",
    );
    await listening.close();
  } finally {
    await mcp.close();
  }
}

/**
 * The same app given a connection its library does not use: its reads are unseen, so it names
 * the live command once, re-runs it on any write (a watcher still hears), and the harness sees it.
 */
export async function unseenNotes(app: App, protocol: ProtocolVersion): Promise<void> {
  const mcp = await testApp(app).mcp({ protocol });
  try {
    const ada = structured<{ id: number }>(await mcp.call("authors_create", { name: "Ada" }));
    const note = structured<{ id: number }>(
      await mcp.call("notes_create", { author_id: ada.id, title: "one" }),
    );
    const show = `notes://notes_show/${note.id}`;
    const listening = await mcp.listen([show]);
    assert.deepEqual(mcp.live.unseen(), ["notes_show"]);
    const inspected: string[] = [];
    await inspectReads(app, [show], (line) => inspected.push(line));
    assert.match(
      inspected[1]!,
      /^ {2}reads nothing livecmd can see: every write re-runs a watch of it; give livecmd the handle/,
    );
    const cost: string[] = [];
    await inspectCost(app, (text) => cost.push(text));
    assert.match(
      cost.join("\n"),
      /^notes_show +notes:\/\/notes_show\/\d+ +reads nothing livecmd can see/m,
    );
    await mcp.call("notes_rename", { id: note.id, title: "two" });
    await app.db.run("UPDATE authors SET name = 'Ada L.' WHERE id = ?", ada.id);
    await mcp.live.settled();
    assert.deepEqual(mcp.live.unseen(), ["notes_show"], "named once");
    await listening.close();
  } finally {
    await mcp.close();
  }
}
