/**
 * `npm run bench`: runs every benchmark module in order and writes bench/RESULTS.md.
 * `npm run bench -- parse expand` runs only the named modules and prints, writing nothing, so a
 * partial run never replaces the committed results.
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { renderReport, environmentNow } from "./report.ts";
import { createContext } from "./lib/context.ts";
import type { BenchModule, Section } from "./lib/section.ts";

/** One line per benchmark module: `[name, () => import(file)]`. The report follows this order. */
const MODULES: [string, () => Promise<BenchModule>][] = [
  ["parse", async () => (await import("./parse.bench.ts")).parseBench],
  ["expand", async () => (await import("./expand.bench.ts")).expandBench],
  ["codegen", async () => (await import("./codegen.bench.ts")).codegenBench],
  ["watch", async () => (await import("./watch.bench.ts")).watchBench],
  ["read", async () => (await import("./read.bench.ts")).readBench],
  ["fanout", async () => (await import("./fanout.bench.ts")).fanoutBench],
  ["fairness", async () => (await import("./fairness.bench.ts")).fairnessBench],
  ["rows", async () => (await import("./rows.bench.ts")).rowsBench],
  ["postgres", async () => (await import("./postgres.bench.ts")).postgresBench],
  ["postgres-rows", async () => (await import("./postgresRows.bench.ts")).postgresRowsBench],
  ["replicas", async () => (await import("./replicas.bench.ts")).replicasBench],
];

const RESULTS_FILE = path.join(import.meta.dirname, "RESULTS.md");

async function main(selected: string[]): Promise<void> {
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
  const report = renderReport(
    { ...environment, loadAfter: os.loadavg()[0]!, seconds: (performance.now() - started) / 1000 },
    sections,
  );
  if (selected.length > 0) return void process.stdout.write(report);
  await writeFile(RESULTS_FILE, report);
  context.log(`wrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
}

await main(process.argv.slice(2));
