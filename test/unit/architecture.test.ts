import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { root } from "../helpers/cli.ts";

const ARCHITECTURE = readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
const TOP_FOLDERS = ["bench", "docs", "example", "examples", "packages", "scripts", "test"];
/** The folders of each package, which the tables name from the package's own folder (`runtime/uri/int.ts`). */
const PACKAGE_FOLDERS = ["bin", "cli", "generator", "runtime", "templates"];
const PACKAGES = ["packages/livecmd", "packages/livecmd-kit"];
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
/** Where a path the tables name is: from the root, or from a package's folder. */
function claimedPath(span: string): string | undefined {
  return [span, ...PACKAGES.map((folder) => `${folder}/${span}`)].find((candidate) =>
    existsSync(path.join(root, candidate)),
  );
}

function cellProblems(cell: string, files: readonly string[], names = true): string[] {
  const problems: string[] = [];
  let current: string | undefined;
  for (const span of codeSpans(cell)) {
    const top = span.split("/")[0]!;
    const named = TOP_FOLDERS.includes(top) || PACKAGE_FOLDERS.includes(top);
    if (span.includes("/") && named && !span.includes("<")) {
      const target = claimedPath(span.replace(/\/$/, ""));
      if (target === undefined) problems.push(`${span} does not exist`);
      current = target && FILE.test(path.basename(target)) ? target : undefined;
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
    "NoSuchThing is not in packages/livecmd/runtime/live/liveRoom.ts",
  ]);
});

/** The package folder `file` (a path from the root) is in, if any. */
function packageOf(file: string): string | undefined {
  return PACKAGES.find((folder) => file.startsWith(`${folder}/`));
}

/**
 * The relative specifiers in `source` (the text of `file`) that leave its package, or, from its
 * cli/, lead into its runtime/.
 */
function boundaryCrossings(file: string, source: string): string[] {
  const own = packageOf(file)!;
  const specifiers = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.[^"']*)["']/g);
  return [...specifiers]
    .map(([, specifier]) => specifier!)
    .filter((specifier) => {
      const target = path.posix.join(path.posix.dirname(file), specifier);
      return (
        packageOf(target) !== own ||
        target.startsWith(`${own}/runtime/`) !== file.startsWith(`${own}/runtime/`)
      );
    });
}

// The packages ship apart, so each reaches another as any package's user would: by its name
// (livecmd, livecmd/server, livecmd/internal, livecmd/cli, livecmd-kit/cli). Inside livecmd, the
// CLI reaches the runtime through the same entries, as the dev tool's commands do.
test("a package imports another, and its CLI its runtime, only through package entry points", () => {
  const crossings = repositoryFiles()
    .filter((file) => packageOf(file) !== undefined && /\.ts$/.test(file))
    .flatMap((file) =>
      boundaryCrossings(file, readFileSync(path.join(root, file), "utf8")).map(
        (specifier) => `${file}: ${specifier}`,
      ),
    );
  assert.deepEqual(crossings, []);
});

test("the entry point check finds a relative import across a package or into runtime/, static or dynamic", () => {
  const source = [
    'import type { App } from "../../runtime/model/app.ts";',
    'const { serveHttp } = await import("../../runtime/server/serveHttp.ts");',
    'import { engineOf } from "livecmd/internal";',
    'import { runCodegen } from "../../../livecmd-kit/generator/runCodegen.ts";',
    'import { target } from "./target.ts";',
  ].join("\n");
  assert.deepEqual(boundaryCrossings("packages/livecmd/cli/doctor/check.ts", source), [
    "../../runtime/model/app.ts",
    "../../runtime/server/serveHttp.ts",
    "../../../livecmd-kit/generator/runCodegen.ts",
  ]);
});
