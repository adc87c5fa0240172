import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import {
  failureLog,
  keepServing,
  PROBLEM_QUIET_MS,
  RecurringProblem,
} from "../../packages/livecmd/runtime/problems/keepServing.ts";
import { root } from "../helpers/cli.ts";

describe("a problem that keeps happening is logged once, then counted", () => {
  test("the first at once; the next ones counted into one line per quiet spell", () => {
    const lines: string[] = [];
    let now = 0;
    const problem = new RecurringProblem(
      (line) => lines.push(line),
      () => now,
    );
    problem.happened("first");
    for (let n = 0; n < 1000; n++) problem.happened("again");
    assert.deepEqual(lines, ["first"]);
    now = PROBLEM_QUIET_MS;
    problem.happened("later");
    now += PROBLEM_QUIET_MS;
    problem.happened("much later");
    assert.deepEqual(lines, [
      "first",
      "later (and 1000 more like it since the last line)",
      "much later",
    ]);
  });

  test("a callback that throws returns, says what failed once, and runs again next time", () => {
    const lines: string[] = [];
    let calls = 0;
    const tick = keepServing(
      "polling the thing",
      () => {
        calls += 1;
        throw new Error("x".repeat(10_000));
      },
      (line) => lines.push(line),
    );
    for (let n = 0; n < 100; n++) tick();
    assert.equal(calls, 100);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^livecmd: polling the thing failed: x{300}… \(10000 characters\); livecmd keeps serving$/,
    );
  });

  test("a rejection, logged the same way", async () => {
    const lines: string[] = [];
    const failed = failureLog("re-running", (line) => lines.push(line));
    await Promise.reject(new Error("gone")).catch(failed);
    await Promise.reject("not an Error").catch(failed);
    assert.deepEqual(lines, ["livecmd: re-running failed: gone; livecmd keeps serving"]);
  });
});

const folder = mkdtempSync(path.join(tmpdir(), "livecmd-keep-serving-"));
after(() => rmSync(folder, { recursive: true, force: true }));

/**
 * Run in a process of its own, as a server runs: another connection holds the file (rollback
 * journal) exclusively while this one polls it without waiting (busy timeout 0), so every poll
 * meets "database is locked", then commits. Prints what was reported.
 */
const LOCKED_FILE = (file: string) => `
  import Database from "better-sqlite3";
  import { SqliteDatabase } from ${JSON.stringify(pathToFileURL(path.join(root, "packages/livecmd/runtime/db/sqlite/sqliteDatabase.ts")).href)};
  const other = new Database(${JSON.stringify(file)});
  other.exec("CREATE TABLE w (id INTEGER PRIMARY KEY)");
  const changes = [];
  const db = new SqliteDatabase(new Database(${JSON.stringify(file)}, { timeout: 0 }), (each) => changes.push(...each));
  other.exec("BEGIN EXCLUSIVE; INSERT INTO w VALUES (1)");
  await new Promise((resolve) => setTimeout(resolve, 300));
  other.exec("COMMIT");
  for (let waited = 0; changes.length === 0 && waited < 5000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  process.stdout.write(JSON.stringify(changes));
  await db.close();
`;

test("a poll that meets a locked file: one line, the process keeps going, the write is seen once the lock is gone", async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      "--conditions=livecmd-source",
      "--import",
      "tsx",
      "--input-type=module",
      "--eval",
      LOCKED_FILE(path.join(folder, "locked.sqlite")),
    ],
    { cwd: root },
  );
  assert.deepEqual(JSON.parse(stdout), [{ table: "w", rows: [{ rowid: "n1" }] }]);
  assert.equal(
    stderr,
    "livecmd: polling the SQLite change log failed: database is locked; livecmd keeps serving\n",
  );
});
