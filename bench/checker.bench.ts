/**
 * Issue 45: what the live-correctness checker sustains on this machine, and what `npm test`'s
 * short run of it costs: each target on each database, as test/checker/live-correctness.test.ts
 * runs it (a process of its own, 24 rounds).
 *
 *   npx tsx bench/checker.bench.ts        # prints this row alone, writes nothing
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { postgresServer } from "../test/helpers/postgres.ts";
import { DATABASES, TARGETS } from "../test/checker/soak.ts";
import { REPO_ROOT } from "./lib/processes.ts";
import { runAlone } from "./read.bench.ts";
import type { BenchModule, Comparison, Section } from "./lib/section.ts";

const ROUNDS = 24;
const SEED = 20261206;
const REPORT =
  /(\d+) rounds, (\d+) writes \((\d+) storms, (\d+) refused\), (\d+) URIs watched, (\d+) re-runs, (\d+) notifications in ([\d.]+) s: every property held/;

export const checkerBench: BenchModule = {
  async run(context): Promise<Section> {
    const server = postgresServer();
    const env = { ...process.env, ...(server.url && { DATABASE_URL: server.url }) };
    const comparisons: Comparison[] = [];
    let total = 0;
    for (const database of DATABASES)
      for (const target of TARGETS) {
        context.log(`checker: ${target} on ${database}`);
        const started = performance.now();
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [
            ...process.execArgv,
            path.join(REPO_ROOT, "test/checker/soak.ts"),
            "--one",
            `--target=${target}`,
            `--database=${database}`,
            `--seed=${SEED}`,
            `--rounds=${ROUNDS}`,
          ],
          { cwd: REPO_ROOT, env },
        );
        const seconds = (performance.now() - started) / 1000;
        total += seconds;
        const found = REPORT.exec(stdout);
        if (!found) throw new Error(`checker: ${target} on ${database} did not hold: ${stdout}`);
        const [, , writes, , refused, watched, reruns, , checked] = found.map(Number);
        const name = `${target} on ${database}`;
        comparisons.push(
          { label: `${name}: writes per s`, value: (writes! - refused!) / checked!, unit: "per s" },
          { label: `${name}: re-runs per s`, value: reruns! / checked!, unit: "per s" },
          { label: `${name}: URIs watched`, value: watched!, unit: "x" },
          {
            label: `${name}: the short run, process start to exit`,
            value: seconds * 1000,
            unit: "ms",
          },
        );
      }
    comparisons.push({
      label: "every short run, one after another",
      value: total * 1000,
      unit: "ms",
    });
    return {
      title:
        "The live-correctness checker: what it sustains, and what npm test's short run costs (issue 45)",
      method: [
        `\`test/checker/soak.ts --one\` for each target and database, seed ${SEED}, ${ROUNDS} rounds, each in a process of its own, one after another (as \`npm test\` runs them, but for its two files at once).`,
        "Writes and re-runs per second are over the checker's own time (its report), quiescent waits and checks included: a rate of the whole check, not of livecmd alone.",
      ],
      figures: [],
      comparisons,
      notes: [
        "A round starts up to six writes, watch changes and cancelled reads at once, then waits for the server to settle and checks every watcher: most of a round is that wait and those checks.",
      ],
    };
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runAlone(checkerBench);
