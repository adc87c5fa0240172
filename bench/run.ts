/**
 * `npm run bench`: runs every benchmark module in order and writes bench/RESULTS.md, on Node 22
 * (package.json runs it through scripts/better-sqlite3-line.sh): users run 22 and 24, and the
 * compile cache livecmd's bin turns on is theirs, not the machine's Node 20.
 * `npm run bench -- parse expand` runs only the named modules and prints, writing nothing, so a
 * partial run never replaces the committed results. `npm run bench -- --merge replicas` writes
 * the named modules' rows into RESULTS.md in place of theirs (or at the end), each marked as
 * measured apart from the full run, and leaves every other row as it was.
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { mergeIntoReport, renderReport, environmentNow } from "./report.ts";
import { createContext } from "./lib/context.ts";
import type { BenchModule, Section } from "./lib/section.ts";

/** One line per benchmark module: `[name, () => import(file)]`. The report follows this order. */
const MODULES: [string, () => Promise<BenchModule>][] = [
  ["parse", async () => (await import("./parse.bench.ts")).parseBench],
  ["expand", async () => (await import("./expand.bench.ts")).expandBench],
  ["codegen", async () => (await import("./codegen.bench.ts")).codegenBench],
  ["watch", async () => (await import("./watch.bench.ts")).watchBench],
  ["read", async () => (await import("./read.bench.ts")).readBench],
  ["mount", async () => (await import("./mount.bench.ts")).mountBench],
  ["fanout", async () => (await import("./fanout.bench.ts")).fanoutBench],
  ["watch-tool", async () => (await import("./watchTool.bench.ts")).watchToolBench],
  ["views", async () => (await import("./views.bench.ts")).viewsBench],
  ["fairness", async () => (await import("./fairness.bench.ts")).fairnessBench],
  ["fair-holders", async () => (await import("./fairHolders.bench.ts")).fairHoldersBench],
  ["rows", async () => (await import("./rows.bench.ts")).rowsBench],
  ["bulk", async () => (await import("./bulkWrites.bench.ts")).bulkWritesBench],
  ["postgres", async () => (await import("./postgres.bench.ts")).postgresBench],
  ["postgres-rows", async () => (await import("./postgresRows.bench.ts")).postgresRowsBench],
  ["replicas", async () => (await import("./replicas.bench.ts")).replicasBench],
  ["capture", async () => (await import("./capture.bench.ts")).captureBench],
  ["bus", async () => (await import("./bus.bench.ts")).busBench],
  ["startup", async () => (await import("./startup.bench.ts")).startupBench],
  ["stacks", async () => (await import("./stacks.bench.ts")).stacksBench],
  ["saturated-pool", async () => (await import("./saturatedPool.bench.ts")).saturatedPoolBench],
  ["checker", async () => (await import("./checker.bench.ts")).checkerBench],
  ["revocation", async () => (await import("./revocation.bench.ts")).revocationBench],
];

const RESULTS_FILE = path.join(import.meta.dirname, "RESULTS.md");

async function main(args: string[]): Promise<void> {
  const merge = args.includes("--merge");
  const selected = args.filter((arg) => arg !== "--merge");
  if (merge && selected.length === 0)
    throw new Error("bench: --merge needs the names of the benchmarks to merge");
  const unknown = selected.filter((name) => !MODULES.some(([known]) => known === name));
  if (unknown.length > 0)
    throw new Error(
      `unknown benchmark ${unknown.join(", ")}; known: ${MODULES.map(([name]) => name).join(", ")}`,
    );
  const started = performance.now();
  const environment = environmentNow();
  const context = createContext();
  const sections: Section[] = [];
  for (const [name, load] of MODULES) {
    if (selected.length > 0 && !selected.includes(name)) continue;
    context.log(`== ${name}`);
    sections.push(await (await load()).run(context));
  }
  const finished = {
    ...environment,
    loadAfter: os.loadavg()[0]!,
    seconds: (performance.now() - started) / 1000,
  };
  if (merge) {
    await writeFile(
      RESULTS_FILE,
      mergeIntoReport(await readFile(RESULTS_FILE, "utf8"), finished, sections),
    );
    return void context.log(`merged ${selected.join(", ")} into ${RESULTS_FILE}`);
  }
  const report = renderReport(finished, sections);
  if (selected.length > 0) return void process.stdout.write(report);
  await writeFile(RESULTS_FILE, report);
  context.log(`wrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
}

await main(process.argv.slice(2));
