import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/cli.ts";

const ARCHITECTURE = readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
const TOP_FOLDERS = [
  "bench",
  "cli",
  "docs",
  "example",
  "generator",
  "runtime",
  "scripts",
  "templates",
  "test",
];
const FILE = /^[\w.-]+\.(ts|sh|yml|md|json|hbs)$/;
const NAME = /^[A-Za-z_]\w*(\(\))?$/;

/** Every file of the repository but dependencies and caches, by its path from the root. */
function repositoryFiles(folder = ""): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory())
      return ["node_modules", ".git", ".cache", "dist"].includes(entry.name)
        ? []
        : repositoryFiles(relative);
    return [relative];
  });
}

/** The cells of every table row, split on unescaped pipes. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((line) => line.startsWith("| ") && !/^\| -/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
}

function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map(([, span]) => span!);
}

/**
 * What a cell claims, read in order: a path from the root (`runtime/live/liveRoom.ts`) must
 * exist; a file name alone (`readSet.ts`) is in the folder of the path before it (or at the
 * root), or somewhere when there is none; in the place column of the rules, a name (`holderOf`,
 * `listings()`) stands in the file before it.
 */
function cellProblems(cell: string, files: readonly string[], names = true): string[] {
  const problems: string[] = [];
  let current: string | undefined;
  for (const span of codeSpans(cell)) {
    const top = span.split("/")[0]!;
    if (span.includes("/") && TOP_FOLDERS.includes(top) && !span.includes("<")) {
      const target = span.replace(/\/$/, "");
      if (!existsSync(path.join(root, target))) problems.push(`${span} does not exist`);
      current = FILE.test(path.basename(target)) ? target : undefined;
    } else if (FILE.test(span)) {
      const found = current
        ? [path.posix.join(path.posix.dirname(current), span), span].filter((file) =>
            files.includes(file),
          )
        : files.filter((file) => path.posix.basename(file) === span);
      if (found.length === 0)
        problems.push(`${span} is not ${current ? `beside ${current}` : "in the repository"}`);
      current = found[0];
    } else if (names && current && NAME.test(span)) {
      const name = span.replace("()", "");
      if (!new RegExp(`\\b${name}\\b`).test(readFileSync(path.join(root, current), "utf8")))
        problems.push(`${name} is not in ${current}`);
    }
  }
  return problems;
}

test("ARCHITECTURE.md: every path, file and name the tables name exists where they say", () => {
  const files = repositoryFiles();
  const problems = tableRows(ARCHITECTURE).flatMap((cells) =>
    cells.flatMap((cell, column) => cellProblems(cell, files, cells.length === 2 && column === 1)),
  );
  assert.deepEqual(problems, []);
});

test("ARCHITECTURE.md: every folder of the layout tree exists", () => {
  const tree = /```\n([\s\S]*?)```/.exec(ARCHITECTURE)![1]!;
  const missing: string[] = [];
  const parents: string[] = [];
  for (const line of tree.split("\n").filter(Boolean)) {
    const [, indent, folder] = /^( *)(\S+\/)/.exec(line) ?? [];
    if (folder === undefined) continue;
    const depth = indent!.length / 2;
    parents.length = depth;
    parents.push(folder.replace(/\/$/, ""));
    if (!existsSync(path.join(root, ...parents))) missing.push(parents.join("/"));
  }
  assert.deepEqual(missing, []);
});

test("ARCHITECTURE.md: the check finds a path that is not there, and a name its file lacks", () => {
  const files = repositoryFiles();
  assert.deepEqual(
    cellProblems("`runtime/live/gone.ts`, `readSet.ts`", files),
    ["runtime/live/gone.ts does not exist", "readSet.ts is not in the repository"]
      .slice(0, 1)
      .concat([]),
  );
  assert.deepEqual(cellProblems("`runtime/live/liveRoom.ts` `NoSuchThing`", files), [
    "NoSuchThing is not in runtime/live/liveRoom.ts",
  ]);
});

/** The specifiers in `source` (the text of `file`) that lead into runtime/ by a relative path. */
function runtimeReaches(file: string, source: string): string[] {
  const specifiers = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.[^"']*)["']/g);
  return [...specifiers]
    .map(([, specifier]) => specifier!)
    .filter((specifier) =>
      path.posix.join(path.posix.dirname(file), specifier).startsWith("runtime/"),
    );
}

// cli/ and generator/ ship apart from the runtime, so they reach it as any package's user would:
// through livecmd, livecmd/server, livecmd/client, livecmd/uri, livecmd/testing or livecmd/internal.
test("cli/ and generator/ import runtime/ only through the package's entry points", () => {
  const reaches = repositoryFiles()
    .filter((file) => /^(cli|generator)\/.*\.ts$/.test(file))
    .flatMap((file) =>
      runtimeReaches(file, readFileSync(path.join(root, file), "utf8")).map(
        (specifier) => `${file}: ${specifier}`,
      ),
    );
  assert.deepEqual(reaches, []);
});

test("the entry point check finds a relative import into runtime/, static or dynamic", () => {
  const source = [
    'import type { App } from "../../runtime/model/app.ts";',
    'const { serveHttp } = await import("../../runtime/server/serveHttp.ts");',
    'import { engineOf } from "livecmd/internal";',
    'import { appPaths } from "../appPaths.ts";',
  ].join("\n");
  assert.deepEqual(runtimeReaches("cli/doctor/check.ts", source), [
    "../../runtime/model/app.ts",
    "../../runtime/server/serveHttp.ts",
  ]);
});
