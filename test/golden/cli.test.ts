import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { runCodegen } from "../../packages/livecmd-kit/generator/runCodegen.ts";
import { livecmd, root, scratchDir } from "../helpers/cli.ts";

/** The example on an in-memory SQLite database, whatever `DATABASE_URL` the suite runs under: the expected reads are SQLite's. */
const IN_MEMORY_SQLITE = { LIVECMD_EXAMPLE_DB: ":memory:", DATABASE_URL: undefined };

test("cli: codegen --check exits 0 on the committed example output", async () => {
  const run = await livecmd(["codegen", "--check"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /generated\/ is up to date \(9 files/);
});

test("cli: `npm run codegen -- --check` works from the package scripts (the README's commands)", async () => {
  const run = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      "npm",
      ["run", "--silent", "codegen", "--", "--check"],
      { cwd: root },
      (error, stdout, stderr) => resolve({ code: error ? 1 : 0, out: stdout + stderr }),
    );
  });
  assert.equal(run.code, 0, run.out);
  assert.match(run.out, /generated\/ is up to date/);
});

test("cli: codegen notes each live command agents cannot watch, and why", async () => {
  const out = path.relative(root, await scratchDir("codegen-notes-"));
  try {
    const run = await livecmd(["codegen", "--out", out]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(
      run.stdout.split("\n").filter((line) => line.startsWith("note: ")),
      [
        'note: customers_by_attributes is live but cannot be watched: argument "attrs" (Record<string, string>) is a map with open keys, which cannot be a URI variable, so customers_by_attributes is a tool only',
        'note: customers_report is live but cannot be watched: argument "filter" (ReportFilter) has field "balance", a nested object; only one level of scalar fields flattens into URI variables, so customers_report is a tool only',
        'note: customers_search is live but cannot be watched: two variables are named "page" (field "page" of argument "query" (CustomerQuery) and argument "page" (Int)), so customers_search is a tool only',
        'note: customers_tagged is live but cannot be watched: argument "tags" (string[]) is a list, which cannot be a URI variable, so customers_tagged is a tool only',
      ],
    );
  } finally {
    await rm(path.join(root, out), { recursive: true, force: true });
  }
});

test("cli: an app with input errors exits 2 and prints file:line:col", async () => {
  const run = await livecmd([
    "codegen",
    "--check",
    "--app",
    "test/fixtures/grant-error/app/app.ts",
  ]);
  assert.equal(run.code, 2);
  assert.match(
    run.stdout,
    /^test\/fixtures\/grant-error\/app\/app\.ts:11:99 - error CG006: agent\.grant lists "stray"/m,
  );
});

test("cli: inspect prints every command with its template or why it has none", async () => {
  const run = await livecmd(["inspect"]);
  assert.equal(run.code, 0, run.stderr);
  const rows = [
    /^customers_index\s+live\s+yes\s+readOnly\s+app:\/\/customers_index\s+app:\/\/customers_index\{\?direction,page,per_page,search,sort\}$/m,
    /^customers_show\s+live\s+yes\s+readOnly\s+-\s+app:\/\/customers_show\/\{id\}$/m,
    /^orders_between\s+live\s+yes\s+readOnly\s+-\s+app:\/\/orders_between\/\{from\}\/\{to\}\{\?status\}$/m,
    /^orders_over\s+live\s+yes\s+readOnly\s+-\s+app:\/\/orders_over\/\{min_total\}\{\?status\}$/m,
    /^orders_flagged\s+live\s+yes\s+readOnly\s+app:\/\/orders_flagged\s+app:\/\/orders_flagged\{\?include_archived\}$/m,
    /^customers_tagged\s+live\s+yes\s+readOnly\s+-\s+none: argument "tags" \(string\[\]\) is a list/m,
    /^customers_report\s+live\s+yes\s+readOnly\s+-\s+none: argument "filter" \(ReportFilter\) has field "balance", a nested object/m,
    /^customers_by_attributes\s+live\s+yes\s+readOnly\s+-\s+none: argument "attrs" \(Record<string, string>\) is a map/m,
    /^customers_search\s+live\s+yes\s+readOnly\s+-\s+none: two variables are named "page"/m,
    /^customers_create\s+write\s+yes\s+-\s+-\s+-$/m,
    /^customers_rename\s+write\s+yes\s+idempotent\s+-\s+-$/m,
    /^customers_delete\s+confirm\s+yes\s+destructive\s+-\s+-$/m,
    /^customers_export\s+live\s+no\s+/m,
  ];
  for (const row of rows) assert.match(run.stdout, row);
});

test("cli: inspect --reads prints, per URI, the rows by key (looked up or not), by filter or whole tables a watch of it depends on, also of a read that fails", async () => {
  const run = await livecmd(
    [
      "inspect",
      "--reads",
      "app://customers_show/1",
      "--reads",
      "app://orders_between/2026-01-01/2026-01-31",
    ],
    IN_MEMORY_SQLITE,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    run.stdout,
    [
      "app://customers_show/1: customers_show(1)",
      "  customer_attributes  by customer_id = 1",
      "  customer_tags        by customer_id = 1",
      "  customers            by rowid = 1",
      "  orders               by customer_id = 1",
      "  never reads ctx.auth: one run serves every principal",
      'app://orders_between/2026-01-01/2026-01-31: orders_between("2026-01-01", "2026-01-31")',
      "  customers  by rowid = none (looked up from orders.customer_id)",
      "  orders     where placed_on BETWEEN '2026-01-01' AND '2026-01-31' AND (conditions livecmd cannot test)",
      "  never reads ctx.auth: one run serves every principal",
      "",
    ].join("\n"),
  );
  const missing = await livecmd(
    ["inspect", "--reads", "app://customers_show/99999"],
    IN_MEMORY_SQLITE,
  );
  assert.equal(missing.code, 0, missing.stderr);
  assert.equal(
    missing.stdout,
    [
      "app://customers_show/99999: customers_show(99999)",
      "  the read failed (no customer with id 99999); until it succeeds, a watch of it depends on:",
      "  customers  by rowid = 99999",
      "  orders     by customer_id = 99999",
      "  never reads ctx.auth: one run serves every principal",
      "",
    ].join("\n"),
  );
  const refused = await livecmd(["inspect", "--reads", "app://customers_show/x"], IN_MEMORY_SQLITE);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /--reads app:\/\/customers_show\/x: .*id: must be an integer like 12; got "x"/,
  );
});

test("cli: inspect --cost reads each template once with its examples and tells what a write must touch to re-run a watch of it", async () => {
  const run = await livecmd(["inspect", "--cost"], IN_MEMORY_SQLITE);
  assert.equal(run.code, 0, run.stderr);
  const cost = run.stdout.slice(run.stdout.indexOf("\ncost of watching each template"));
  assert.equal(
    cost,
    [
      "",
      "cost of watching each template (read once on the app's database, with its examples):",
      "",
      "command          read as                                     cost: a write re-runs a watch of it when it changes",
      "---------------  ------------------------------------------  ---------------------------------------------------",
      "customers_index  app://customers_index                       whole customers (LIKE on name)",
      "customers_show   app://customers_show/1                      by key: customer_attributes.customer_id, customer_tags.customer_id, customers.rowid, orders.customer_id",
      "orders_between   app://orders_between/2025-01-01/2025-01-31  by key: customers.rowid (looked up from orders.customer_id); by filter: orders where placed_on BETWEEN '2025-01-01' AND '2025-01-31' AND (conditions livecmd cannot test)",
      "orders_flagged   app://orders_flagged                        by key: customers.rowid (looked up from orders.customer_id); by filter: orders where flagged = 1 AND (archived = 0 OR (conditions livecmd cannot test))",
      "orders_over      app://orders_over/10000                     by key: customers.rowid (looked up from orders.customer_id); by filter: orders where total >= 10000 AND (conditions livecmd cannot test)",
      "",
    ].join("\n"),
  );
});

test("cli: every command has --help, and a mistyped flag is an error", async () => {
  for (const command of ["codegen", "inspect"]) {
    const help = await livecmd([command, "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--app/);
  }
  const typo = await livecmd(["codegen", "--chek"]);
  assert.notEqual(typo.code, 0);
  assert.match(typo.stderr, /Unknown argument: chek/);
});

test("codegen --check reports stale (with a diff), missing and extra files, and writes nothing", async () => {
  const dir = await scratchDir("check-");
  try {
    await cp(path.join(root, "test/fixtures/scalars/app"), path.join(dir, "app"), {
      recursive: true,
    });
    const options = {
      app: path.relative(root, path.join(dir, "app/app.ts")),
      out: path.relative(root, path.join(dir, "out")),
      cwd: root,
      force: false,
      rerun: "npx livecmd codegen",
      log: () => {},
    };
    assert.equal(
      await runCodegen({ ...options, check: true }),
      1,
      "nothing generated yet: missing",
    );
    assert.equal(await runCodegen({ ...options, check: false }), 0);
    assert.equal(await runCodegen({ ...options, check: true }), 0);

    const appFile = path.join(dir, "app/app.ts");
    await writeFile(
      appFile,
      (await readFile(appFile, "utf8")).replace(
        "async (ctx, id: Int) => id);",
        "async (ctx, id: string) => id);",
      ),
    );
    await writeFile(
      path.join(dir, "out/stray.ts"),
      "// Generated by `livecmd codegen` from an older app.\nexport {};\n",
    );
    const before = await readFile(path.join(dir, "out/templates.ts"), "utf8");
    const log: string[] = [];
    assert.equal(await runCodegen({ ...options, check: true, log: (text) => log.push(text) }), 1);
    assert.match(
      log.join("\n"),
      /stale: {3}.*templates\.ts\n[\s\S]*-\s+id: read\.integer\("id", path\.id\),\n\+\s+id: read\.string\("id", path\.id\),/,
    );
    assert.match(log.join("\n"), /extra: {3}.*stray\.ts/);
    assert.equal(
      await readFile(path.join(dir, "out/templates.ts"), "utf8"),
      before,
      "--check never writes",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
