import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { root } from "../helpers/cli.ts";

const ARCHITECTURE = readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
const TOP_FOLDERS = ["bench", "docs", "example", "examples", "packages", "scripts", "test"];
/** The folders of each package, which the tables name from the package's own folder (`runtime/uri/int.ts`). */
const PACKAGE_FOLDERS = ["bin", "cli", "generator", "runtime", "view"];
const PACKAGES = ["packages/livecmd", "packages/livecmd-kit"];
const FILE = /^[\w.-]+\.(ts|sh|yml|md|json)$/;
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

/** The runtime's folder, whose rooms the arrows table names (`runtime/live/`). */
const RUNTIME = "packages/livecmd/runtime";

/**
 * The rooms of the runtime and the rooms each may import, as ARCHITECTURE.md's "Rooms and
 * arrows" table draws them: a row is a room (`runtime/live/`) and the rooms it reaches.
 */
function drawnArrows(markdown: string): Map<string, Set<string>> {
  const section = /## Rooms and arrows\n([\s\S]*?)\n## /.exec(markdown)![1]!;
  return new Map(
    tableRows(section)
      .filter(([room]) => room !== "room")
      .map(([room, imports]) => [
        codeSpans(room!)[0]!,
        new Set(codeSpans(imports ?? "").filter((span) => span.endsWith("/"))),
      ]),
  );
}

/** The room of a runtime file: the deepest room drawn whose folder holds it. */
function roomOf(file: string, rooms: readonly string[]): string | undefined {
  return rooms
    .filter((room) => file.startsWith(`packages/livecmd/${room}`))
    .sort((a, b) => b.length - a.length)[0];
}

/** Every relative module a file imports (static, dynamic, type-only or re-exported), from the root. */
function importedFiles(file: string, source: string): string[] {
  const specifiers = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.[^"']*)["']/g);
  return [...specifiers].map(([, specifier]) =>
    path.posix.join(path.posix.dirname(file), specifier!),
  );
}

/** The imports between rooms that the table does not draw, as `file -> imported`. */
function undrawnArrows(arrows: Map<string, Set<string>>, sources: Map<string, string>): string[] {
  const rooms = [...arrows.keys()];
  return [...sources].flatMap(([file, source]) => {
    const from = roomOf(file, rooms);
    if (from === undefined) return [];
    return importedFiles(file, source)
      .filter((target) => {
        const to = roomOf(target, rooms);
        return to !== undefined && to !== from && !arrows.get(from)!.has(to);
      })
      .map((target) => `${file} -> ${target}`);
  });
}

function runtimeSources(): Map<string, string> {
  return new Map(
    repositoryFiles()
      .filter((file) => file.startsWith(`${RUNTIME}/`) && file.endsWith(".ts"))
      .map((file) => [file, readFileSync(path.join(root, file), "utf8")]),
  );
}

test("ARCHITECTURE.md: every runtime file is in a room, and imports only the rooms its row draws", () => {
  const arrows = drawnArrows(ARCHITECTURE);
  const sources = runtimeSources();
  const rooms = [...arrows.keys()];
  const homeless = [...sources.keys()].filter(
    (file) => roomOf(file, rooms) === undefined && path.posix.dirname(file) !== RUNTIME,
  );
  assert.deepEqual(homeless, [], "files in no room of the table");
  assert.deepEqual(undrawnArrows(arrows, sources), []);
});

test("the arrows check finds an import the table does not draw", () => {
  const arrows = new Map([
    ["runtime/live/", new Set<string>()],
    ["runtime/server/", new Set(["runtime/live/"])],
  ]);
  const sources = new Map([
    [`${RUNTIME}/live/liveRoom.ts`, 'import { limitReached } from "../server/errors.ts";'],
    [`${RUNTIME}/server/x.ts`, 'import type { LiveRoom } from "../live/liveRoom.ts";'],
  ]);
  assert.deepEqual(undrawnArrows(arrows, sources), [
    `${RUNTIME}/live/liveRoom.ts -> ${RUNTIME}/server/errors.ts`,
  ]);
});

// The watching is the live room's, whole: it words no wire error and knows no server. Its
// refusals are data (`WatchRefusal`) the server words (`LIVE_REFUSALS`).
test("live/ imports nothing from server/", () => {
  const intoServer = [...runtimeSources()]
    .filter(([file]) => file.startsWith(`${RUNTIME}/live/`))
    .flatMap(([file, source]) =>
      importedFiles(file, source)
        .filter((target) => target.startsWith(`${RUNTIME}/server/`))
        .map((target) => `${file} -> ${target}`),
    );
  assert.deepEqual(intoServer, []);
});

const GENERATOR = "packages/livecmd-kit/generator";
const STAGES = ["discover", "analyze", "plan", "render", "output"];
/** What a stage may import of generator/'s own files: the plain data between stages, and reuse. */
const BETWEEN_STAGES = new Set([`${GENERATOR}/model.ts`, `${GENERATOR}/reuse.ts`]);

/** A stage's imports of generator/'s own files other than the data between stages, as `file -> imported`. */
function upwardImports(sources: Map<string, string>): string[] {
  return [...sources].flatMap(([file, source]) =>
    importedFiles(file, source)
      .filter((target) => path.posix.dirname(target) === GENERATOR && !BETWEEN_STAGES.has(target))
      .map((target) => `${file} -> ${target}`),
  );
}

// The runs (runCodegen, watchCodegen, the pipeline) sit above the stages and call them.
test("a generator stage imports none of the runs above it, only the data between stages", () => {
  const sources = new Map(
    repositoryFiles()
      .filter((file) => STAGES.some((stage) => file.startsWith(`${GENERATOR}/${stage}/`)))
      .map((file) => [file, readFileSync(path.join(root, file), "utf8")]),
  );
  assert.ok(sources.size > 40, `${sources.size} stage files found`);
  assert.deepEqual(upwardImports(sources), []);
  assert.deepEqual(
    upwardImports(
      new Map([
        [`${GENERATOR}/output/watch.ts`, 'import { generateFor } from "../runCodegen.ts";'],
      ]),
    ),
    [`${GENERATOR}/output/watch.ts -> ${GENERATOR}/runCodegen.ts`],
    "the check finds one",
  );
});

/** The longest a function may be, and a class, in lines. */
const MAX_FUNCTION_LINES = 60;
const MAX_CLASS_LINES = 200;

/**
 * The functions and classes over the limits today, each to be split by what its parts do (the
 * test fails when one grows back in, or when one listed here is split, so the list stays true).
 * Code generated by a tool (ajv's standalone validators) is not read, and not listed.
 */
const OVER_LIMITS = new Set([
  "class live/liveRegistry.ts LiveRegistry",
  "class model/appEngine.ts AppEngine",
  "function model/watchTool.ts watchToolEntry",
  "function testing/index.ts connect",
  "class uri/splitUri.ts Splitter",
  "class db/postgres/plan/planReads.ts PlanAnalysis",
  "function db/node-postgres/postgres.ts postgres",
  "function db/node-postgres/postgres.ts open",
  "class db/sqlite/changes/changeLog.ts ChangeLog",
  "class db/sqlite/plan/planFilters.ts Loop",
  "class db/sqlite/plan/planReads.ts ProgramAnalysis",
  "class db/sqlite/sqliteDatabase.ts ConnectionCore",
  "class db/sqlite/plan/statementPlans.ts Binding",
]);

const GENERATED = /^\/\/ Generated by /;

/** Each function and class of `source` over its limit, as `kind file name (lines)`. */
function oversized(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lines = (node: ts.Node) =>
    tree.getLineAndCharacterOfPosition(node.getEnd()).line -
    tree.getLineAndCharacterOfPosition(node.getStart()).line +
    1;
  const visit = (node: ts.Node): void => {
    const isClass = ts.isClassDeclaration(node) || ts.isClassExpression(node);
    if (isClass || ts.isFunctionLike(node)) {
      const limit = isClass ? MAX_CLASS_LINES : MAX_FUNCTION_LINES;
      if ("body" in node || isClass) {
        const size = lines(node);
        const name = (node as { name?: ts.Node }).name?.getText(tree) ?? "(anonymous)";
        if (size > limit) found.push(`${isClass ? "class" : "function"} ${file} ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

test(`no runtime function is over ${MAX_FUNCTION_LINES} lines, no class over ${MAX_CLASS_LINES}, but those listed to split`, () => {
  const over = [...runtimeSources()]
    .filter(([, source]) => !GENERATED.test(source))
    .flatMap(([file, source]) => oversized(file.slice(RUNTIME.length + 1), source));
  assert.deepEqual(
    over.filter((entry) => !OVER_LIMITS.has(entry)),
    [],
    "over the limits",
  );
  assert.deepEqual(
    [...OVER_LIMITS].filter((entry) => !over.includes(entry)),
    [],
    "listed, but within the limits now: take them off the list",
  );
});

test("the size check finds a function over its limit, and a class", () => {
  const body = Array.from(
    { length: MAX_FUNCTION_LINES },
    (_, line) => `  const x${line} = ${line};`,
  );
  const source = `function long() {\n${body.join("\n")}\n}\nclass Short {}\n`;
  assert.deepEqual(oversized("a.ts", source), ["function a.ts long"]);
  const members = Array.from({ length: MAX_CLASS_LINES }, (_, line) => `  x${line} = ${line};`);
  assert.deepEqual(oversized("b.ts", `class Big {\n${members.join("\n")}\n}\n`), [
    "class b.ts Big",
  ]);
});

/** Each dialect's folder, and the drivers that stand above it: they find the connection, it does the rest. */
const DIALECT_DRIVERS: Readonly<Record<string, readonly string[]>> = {
  [`${RUNTIME}/db/sqlite/`]: ["better-sqlite3", "node-sqlite", "prisma"],
  [`${RUNTIME}/db/postgres/`]: ["node-postgres"],
};

/** A dialect's imports of a driver's folder, as `file -> imported`. */
function dialectIntoDriver(sources: Map<string, string>): string[] {
  return [...sources].flatMap(([file, source]) => {
    const dialect = Object.keys(DIALECT_DRIVERS).find((folder) => file.startsWith(folder));
    if (dialect === undefined) return [];
    return importedFiles(file, source)
      .filter((target) =>
        DIALECT_DRIVERS[dialect]!.some((driver) => target.startsWith(`${RUNTIME}/db/${driver}/`)),
      )
      .map((target) => `${file} -> ${target}`);
  });
}

// A driver stands above its dialect (db/dialect.ts): a second driver or capture mode plugs in
// beside the others only while the dialect knows none of them.
test("a dialect (db/sqlite/, db/postgres/) imports no driver", () => {
  assert.deepEqual(dialectIntoDriver(runtimeSources()), []);
  assert.deepEqual(
    dialectIntoDriver(
      new Map([
        [
          `${RUNTIME}/db/postgres/plan/x.ts`,
          'import { loadPg } from "../../node-postgres/loadPg.ts";',
        ],
        [
          `${RUNTIME}/db/sqlite/x.ts`,
          'import type { Db } from "../better-sqlite3/betterSqlite3.ts";',
        ],
        [
          `${RUNTIME}/db/node-postgres/x.ts`,
          'import type { PgPool } from "../postgres/pgLibrary.ts";',
        ],
      ]),
    ),
    [
      `${RUNTIME}/db/postgres/plan/x.ts -> ${RUNTIME}/db/node-postgres/loadPg.ts`,
      `${RUNTIME}/db/sqlite/x.ts -> ${RUNTIME}/db/better-sqlite3/betterSqlite3.ts`,
    ],
    "the check finds one",
  );
});
