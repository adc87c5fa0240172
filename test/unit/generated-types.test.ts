import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { Project, ts } from "ts-morph";

const root = path.resolve(import.meta.dirname, "../..");

/** Type-checks a snippet that uses the generated URI helpers, as an app would. */
function compileErrors(body: string): string[] {
  const project = new Project({
    tsConfigFilePath: path.join(root, "tsconfig.json"),
    skipAddingFilesFromTsConfig: true,
  });
  const file = project.createSourceFile(
    path.join(root, "test/unit/__uris_usage__.ts"),
    `import { int } from "livecmd/uri";\nimport { uris } from "../../generated/uris.ts";\n${body}\n`,
  );
  return file
    .getPreEmitDiagnostics()
    .map((diagnostic) =>
      ts.flattenDiagnosticMessageText(diagnostic.compilerObject.messageText, "\n"),
    );
}

const cases: { rule: string; body: string; error: RegExp | null }[] = [
  {
    rule: "valid variables compile",
    body: `uris.customers_show({ id: int(12) }); uris.customers_index({ search: "ada", sort: "name" }); uris.customers_index();`,
    error: null,
  },
  {
    rule: "a wrong enum value does not compile",
    body: `uris.customers_index({ sort: "email" });`,
    error: /"email"' is not assignable to type '"name" \| "created_at" \| "balance"/,
  },
  {
    rule: "a missing required variable does not compile",
    body: `uris.orders_between({ from: "2025-01-01" });`,
    error: /Property 'to' is missing/,
  },
  {
    rule: "an unknown variable does not compile",
    body: `uris.customers_show({ id: int(1), idd: 2 });`,
    error: /'idd' does not exist/,
  },
  {
    rule: "an integer variable takes an Int: a non-integer number does not compile",
    body: `uris.customers_show({ id: 1.5 });`,
    error: /'number' is not assignable to type 'Int'/,
  },
  {
    rule: "a value of the wrong type does not compile",
    body: `uris.orders_flagged({ include_archived: "yes" });`,
    error: /'string' is not assignable to type 'boolean( \| undefined)?'/,
  },
];

for (const { rule, body, error } of cases) {
  test(`generated uris types: ${rule}`, () => {
    const errors = compileErrors(body);
    if (error === null) assert.deepEqual(errors, []);
    else
      assert.ok(
        errors.some((message) => error.test(message)),
        `expected ${error}, got:\n${errors.join("\n")}`,
      );
  });
}
