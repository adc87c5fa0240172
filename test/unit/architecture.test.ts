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
  return importsOf(file, source)
    .filter(
      ({ target, relative }) =>
        relative &&
        (packageOf(target) !== own ||
          target.startsWith(`${own}/runtime/`) !== file.startsWith(`${own}/runtime/`)),
    )
    .map(({ specifier }) => specifier);
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

/** A room of the arrows table: its floor, and the rooms its files may import. */
interface Room {
  floor: number;
  imports: Set<string>;
}

/**
 * The rooms of the runtime as ARCHITECTURE.md's "Rooms and arrows" table draws them: a row is a
 * floor, a room (`runtime/live/`) and the rooms it reaches.
 */
function drawnRooms(markdown: string): Map<string, Room> {
  const section = /## Rooms and arrows\n([\s\S]*?)\n## /.exec(markdown)![1]!;
  return new Map(
    tableRows(section)
      .filter(([floor]) => floor !== "floor")
      .map(([floor, room, imports]) => [
        codeSpans(room!)[0]!,
        {
          floor: Number(floor),
          imports: new Set(codeSpans(imports ?? "").filter((span) => span.endsWith("/"))),
        },
      ]),
  );
}

/** The room of a runtime file: the deepest room drawn whose folder holds it. */
function roomOf(file: string, rooms: readonly string[]): string | undefined {
  return rooms
    .filter((room) => file.startsWith(`packages/livecmd/${room}`))
    .sort((a, b) => b.length - a.length)[0];
}

/**
 * One module a file imports: where (a relative one as a path from the root, else the package's
 * name), and whether a value crosses.
 */
interface Import {
  /** As the file writes it. */
  specifier: string;
  target: string;
  relative: boolean;
  value: boolean;
  /** A dynamic `import()`: it loads on its call, never while the file loads. */
  dynamic: boolean;
}

/** Whether a declaration's clause names only types (`import type`, `import { type A }`, `export type { A }`). */
function typesOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    const named = statement.exportClause;
    return (
      statement.isTypeOnly ||
      (named !== undefined &&
        ts.isNamedExports(named) &&
        named.elements.length > 0 &&
        named.elements.every((element) => element.isTypeOnly))
    );
  }
  const clause = statement.importClause;
  if (clause === undefined) return false;
  const named = clause.namedBindings;
  return (
    clause.isTypeOnly ||
    (clause.name === undefined &&
      named !== undefined &&
      ts.isNamedImports(named) &&
      named.elements.length > 0 &&
      named.elements.every((element) => element.isTypeOnly))
  );
}

/** Every module a file imports (static, dynamic, type-only or re-exported). */
function importsOf(file: string, source: string): Import[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: string, value: boolean, dynamic = false) => {
    const relative = specifier.startsWith(".");
    const target = relative ? path.posix.join(path.posix.dirname(file), specifier) : specifier;
    found.push({ specifier, target, relative, value, dynamic });
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      add(node.moduleSpecifier.text, !typesOnly(node));
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    )
      add(node.arguments[0].text, true, true);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** Every relative module a file imports, from the root. */
function importedFiles(file: string, source: string): string[] {
  return importsOf(file, source)
    .filter(({ relative }) => relative)
    .map(({ target }) => target);
}

/** The imports between rooms that the table does not draw, as `file -> imported`. */
function undrawnArrows(rooms: Map<string, Room>, sources: Map<string, string>): string[] {
  const names = [...rooms.keys()];
  return [...sources].flatMap(([file, source]) => {
    const from = roomOf(file, names);
    if (from === undefined) return [];
    return importedFiles(file, source)
      .filter((target) => {
        const to = roomOf(target, names);
        return to !== undefined && to !== from && !rooms.get(from)!.imports.has(to);
      })
      .map((target) => `${file} -> ${target}`);
  });
}

/**
 * The value imports between rooms that do not go down a floor, as `file -> imported`: with every
 * value arrow pointing to a lower floor, no loop of rooms can load. A type may be named upward
 * (`validation/` names `model/`'s `CommandEntry`), since types leave nothing to load; so may a
 * dynamic `import()`, which loads on its call, never while the file loads.
 */
function upwardValues(rooms: Map<string, Room>, sources: Map<string, string>): string[] {
  const names = [...rooms.keys()];
  return [...sources].flatMap(([file, source]) => {
    const from = roomOf(file, names);
    if (from === undefined) return [];
    return importsOf(file, source)
      .filter(({ target, value, dynamic }) => {
        const to = roomOf(target, names);
        return (
          value &&
          !dynamic &&
          to !== undefined &&
          to !== from &&
          rooms.get(to)!.floor >= rooms.get(from)!.floor
        );
      })
      .map(({ target }) => `${file} -> ${target}`);
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
  const rooms = drawnRooms(ARCHITECTURE);
  const sources = runtimeSources();
  const homeless = [...sources.keys()].filter(
    (file) => roomOf(file, [...rooms.keys()]) === undefined && path.posix.dirname(file) !== RUNTIME,
  );
  assert.deepEqual(homeless, [], "files in no room of the table");
  assert.deepEqual(undrawnArrows(rooms, sources), []);
});

test("ARCHITECTURE.md: a room imports values only from rooms on lower floors, so rooms make no loop", () => {
  const rooms = drawnRooms(ARCHITECTURE);
  assert.deepEqual(
    [...rooms].filter(([, { floor }]) => !Number.isInteger(floor)).map(([room]) => room),
    [],
    "rooms without a floor",
  );
  assert.deepEqual(upwardValues(rooms, runtimeSources()), []);
});

test("the arrows check finds an import the table does not draw, and a value that goes up a floor", () => {
  const rooms = new Map<string, Room>([
    ["runtime/model/", { floor: 1, imports: new Set(["runtime/validation/"]) }],
    ["runtime/validation/", { floor: 0, imports: new Set(["runtime/model/"]) }],
    ["runtime/live/", { floor: 2, imports: new Set() }],
  ]);
  const sources = new Map([
    [`${RUNTIME}/live/liveRoom.ts`, 'import { limitReached } from "../model/errors.ts";'],
    [`${RUNTIME}/model/app.ts`, 'import { check } from "../validation/check.ts";'],
    [`${RUNTIME}/validation/types.ts`, 'import type { App } from "../model/app.ts";'],
    [`${RUNTIME}/validation/check.ts`, 'import { type App, engineOf } from "../model/app.ts";'],
  ]);
  assert.deepEqual(undrawnArrows(rooms, sources), [
    `${RUNTIME}/live/liveRoom.ts -> ${RUNTIME}/model/errors.ts`,
  ]);
  assert.deepEqual(upwardValues(rooms, sources), [
    `${RUNTIME}/validation/check.ts -> ${RUNTIME}/model/app.ts`,
  ]);
});

/**
 * The cycles of files that load one another's values (strongly connected sets of two or more,
 * each sorted), found by Tarjan's algorithm over the static value imports of `sources` (a dynamic
 * `import()` loads on its call, never while its file loads).
 */
function valueCycles(sources: Map<string, string>): string[][] {
  const next = new Map(
    [...sources].map(([file, source]) => [
      file,
      importsOf(file, source)
        .filter(({ value, dynamic, target }) => value && !dynamic && sources.has(target))
        .map(({ target }) => target),
    ]),
  );
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const target of next.get(file)!) {
      if (!order.has(target)) visit(target);
      if (stack.includes(target)) low.set(file, Math.min(low.get(file)!, low.get(target)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const cycle = stack.splice(stack.indexOf(file));
    if (cycle.length > 1) cycles.push(cycle.sort());
  };
  for (const file of next.keys()) if (!order.has(file)) visit(file);
  return cycles;
}

function packageSources(): Map<string, string> {
  return new Map(
    repositoryFiles()
      .filter((file) => packageOf(file) !== undefined && /(?<!\.d)\.ts$/.test(file))
      .map((file) => [file, readFileSync(path.join(root, file), "utf8")]),
  );
}

// A cycle of value imports makes load order decide what a module sees (a class still undefined
// while its importer runs); a type named both ways loads nothing.
test("no files of the packages import one another's values in a cycle", () => {
  assert.deepEqual(valueCycles(packageSources()), []);
});

test("the cycle check finds files that load one another, and passes types named both ways", () => {
  const sources = new Map([
    ["a.ts", 'import { b } from "./b.ts";'],
    ["b.ts", 'import { c } from "./c.ts";\nexport const b = 1;'],
    ["c.ts", 'export { b as c } from "./b.ts";'],
    ["d.ts", 'import type { E } from "./e.ts";'],
    ["e.ts", 'import { type D } from "./d.ts";'],
  ]);
  assert.deepEqual(valueCycles(sources), [["b.ts", "c.ts"]]);
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

/** The SDK packages `source` (the text of `file`) imports a value from, as `file: package`. */
function sdkValueImports(file: string, source: string): string[] {
  return importsOf(file, source)
    .filter(({ target, value }) => value && target.startsWith("@modelcontextprotocol/"))
    .map(({ target }) => `${file}: ${target}`);
}

// The live engine watches and re-runs; the SDK's wire (its servers, transports, responses and
// methods) is the server's. Its types may still name what it is handed (`AuthInfo`).
test("no live/ file imports a value from an SDK package, only types", () => {
  const values = [...runtimeSources()]
    .filter(([file]) => file.startsWith(`${RUNTIME}/live/`))
    .flatMap(([file, source]) => sdkValueImports(file, source));
  assert.deepEqual(values, []);
});

test("the SDK import check finds a value import, and passes a type one", () => {
  const source = [
    'import type { AuthInfo } from "@modelcontextprotocol/server";',
    'import { type Server, type Transport } from "@modelcontextprotocol/server";',
    'import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";',
    'import { type JSONRPCMessage, isJSONRPCRequest } from "@modelcontextprotocol/core";',
    'import * as sdk from "@modelcontextprotocol/client";',
    'export { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";',
    'export type { ServerContext } from "@modelcontextprotocol/server";',
    'import { versionOf } from "./resultVersion.ts";',
  ].join("\n");
  assert.deepEqual(sdkValueImports("live/x.ts", source), [
    "live/x.ts: @modelcontextprotocol/server",
    "live/x.ts: @modelcontextprotocol/core",
    "live/x.ts: @modelcontextprotocol/client",
    "live/x.ts: @modelcontextprotocol/server/ext/skills/node",
  ]);
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
 * The functions and classes over the limits, each with why it stays whole: one walk whose state
 * every step shares, where parts would hand that state back and forth. The test fails when one
 * not listed grows over, and when one listed comes within, so the list stays exact. Code
 * generated by a tool (ajv's standalone validators) is not read, and not listed.
 */
const OVER_LIMITS = new Map([
  [
    "class model/appEngine.ts AppEngine",
    "the server's one door to the app: its members are a few lines each over the grant, the completers, the database and the middleware chain, and splitting it moves every caller in server/ to several doors",
  ],
  [
    "class db/postgres/plan/planReads.ts PlanAnalysis",
    "one walk over a generic plan's node tree, whose relations, parameters and conditions every node kind reads and adds to",
  ],
  [
    "class db/sqlite/changes/changeLog.ts ChangeLog",
    "the change log's one cursor: its read, the counter at its largest, a gap counted as every table, all on the last entry seen",
  ],
  [
    "class db/sqlite/plan/planFilters.ts Loop",
    "one pass over a loop's EXPLAIN opcodes, whose registers and seek state every opcode's case reads and writes",
  ],
  [
    "class db/sqlite/plan/planReads.ts ProgramAnalysis",
    "one walk over a statement's EXPLAIN program, whose cursors and registers every opcode's case reads and writes",
  ],
  [
    "class db/sqlite/sqliteDatabase.ts ConnectionCore",
    "what every view of one connection shares: its statements and their plans, its transaction, its changes, its waiters",
  ],
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
    [...OVER_LIMITS.keys()].filter((entry) => !over.includes(entry)),
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

const INTERNAL = "livecmd/internal";

/** The names `source` (the text of `file`) takes from livecmd/internal: imported, or read off a dynamic import. */
function internalNamesUsed(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      (node.moduleSpecifier as ts.StringLiteral).text === INTERNAL
    ) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const { propertyName, name } of bindings.elements)
          names.push((propertyName ?? name).text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      (node.arguments[0] as ts.StringLiteral | undefined)?.text === INTERNAL
    ) {
      let outer: ts.Node = node.parent;
      while (ts.isAwaitExpression(outer) || ts.isParenthesizedExpression(outer))
        outer = outer.parent;
      if (ts.isPropertyAccessExpression(outer)) names.push(outer.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return names;
}

/** The names an entry exports: re-exported, or declared with `export`. */
function exportedNames(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  return tree.statements.flatMap((statement) => {
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    )
      return statement.exportClause.elements.map(({ name }) => name.text);
    const exported =
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
    const { name } = statement as { name?: ts.Identifier };
    return exported && name ? [name.text] : [];
  });
}

// livecmd/internal is the runtime as the CLI and the kit need it, beyond the public entries: a
// name joins it when one of their files takes it, and leaves when none does. An app has the
// public entries, and a test imports the runtime's own files.
test("livecmd/internal exports only what a CLI command or the kit takes from it", () => {
  const takers = repositoryFiles().filter(
    (file) =>
      (file.startsWith("packages/livecmd/cli/") || file.startsWith("packages/livecmd-kit/")) &&
      /(?<!\.d)\.ts$/.test(file),
  );
  const used = new Set(
    takers.flatMap((file) => internalNamesUsed(file, readFileSync(path.join(root, file), "utf8"))),
  );
  const entry = `${RUNTIME}/internal.ts`;
  const exported = exportedNames(entry, readFileSync(path.join(root, entry), "utf8"));
  assert.ok(exported.length > 20, `${exported.length} names exported`);
  assert.deepEqual(
    exported.filter((name) => !used.has(name)),
    [],
    "exported, but taken by no CLI command or kit file: take them out",
  );
  assert.deepEqual(
    [...used].filter((name) => !exported.includes(name)),
    [],
    "taken, but not exported",
  );
});

test("the internal check reads names imported, renamed, and read off a dynamic import", () => {
  const source = [
    'import { engineOf, listings as list, type Catalog } from "livecmd/internal";',
    'import { serve } from "livecmd/server";',
    'const { run } = await (await import("livecmd/internal")).postgresInstall();',
  ].join("\n");
  assert.deepEqual(internalNamesUsed("cli/x.ts", source), [
    "engineOf",
    "listings",
    "Catalog",
    "postgresInstall",
  ]);
  assert.deepEqual(
    exportedNames(
      "i.ts",
      'export { a, type B } from "./a.ts";\nexport async function c() {}\nfunction d() {}',
    ),
    ["a", "B", "c"],
  );
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
