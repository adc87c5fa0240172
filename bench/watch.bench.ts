import { writeFile } from "node:fs/promises";
import { coldRuns, reportedMs } from "./codegen.bench.ts";
import { LineStream, LIVECMD, spawnNode } from "./lib/processes.ts";
import { figureOf, type BenchModule, type Comparison, type Figure } from "./lib/section.ts";
import { commandModule, writeSyntheticApp } from "./lib/syntheticApp.ts";

/**
 * Issue 37: an edit written in under 100 ms at 100 commands, and under 300 ms at 2,000; and at
 * 100 commands that read through Drizzle, whose types the checker infers each edited handler's
 * result from (an app that uses an ORM), held to the same target.
 */
const SIZES: { commands: number; target: number; drizzle?: boolean }[] = [
  { commands: 100, target: 100 },
  { commands: 2000, target: 300 },
  { commands: 100, target: 100, drizzle: true },
];
const EDITS = 9;
/** Long enough for a second file-system event of the same write to have shown up. */
const QUIET_MS = 400;
const TIMEOUT_MS = 300_000;

interface WatchRuns {
  commands: number;
  target: number;
  drizzle?: boolean;
  edit: Figure;
  own: Figure;
  /** Files written per edit, median. */
  written: number;
}

export const watchBench: BenchModule = {
  async run(context) {
    const cold = await coldRuns(context, SIZES[0]!.commands);
    const runs: WatchRuns[] = [];
    for (const size of SIZES) {
      context.log(`watch: ${sizeLabel(size)}, ${EDITS} one-file edits`);
      runs.push({ ...size, ...(await measureEdits(size)) });
    }
    const comparisons: Comparison[] = runs.map((run) => ({
      label: `watch ${sizeLabel(run)}: one-file edit → written`,
      value: run.edit.median,
      unit: "ms",
      target: { op: "<", value: run.target },
    }));
    comparisons.push({
      label: `watch ${cold.commands}: cold \`livecmd codegen\` / watch edit`,
      value: cold.write.median / runs[0]!.edit.median,
      unit: "x",
    });
    return {
      title: "Codegen in watch mode after a one-file edit",
      method: [
        `\`node packages/livecmd/bin/livecmd.js codegen --watch\` on fresh synthetic apps of ${SIZES.map(sizeLabel).join(", ")} (see the cold row); after its first generation, ${EDITS} edits, each rewriting one command module with a new description. The Drizzle app's handlers read through \`drizzle-orm/node-postgres\` (a select with a where and a limit), so each result type is Drizzle's inferred row.`,
        `Timed from just before the write to the arrival of the watcher's next "N written" line, so it includes file-system notification and the watcher's 20 ms debounce; the watcher is left quiet for ${QUIET_MS} ms between edits.`,
        "The cold figure is the cold row's `livecmd codegen` on an app of 100 commands.",
      ],
      figures: [...runs.flatMap((run) => [run.edit, run.own]), cold.write],
      comparisons,
      notes: runs.map(
        (run) =>
          `${sizeLabel(run)}: of the ${Math.round(run.edit.median)} ms from edit to "written", the regeneration itself took ${Math.round(run.own.median)} ms; an edit re-reads and re-analyses only the edited module's commands (and those of the modules importing it), prints only their parts of each output, and writes the ${run.written} files whose bytes changed.`,
      ),
    };
  },
};

/** "100 commands", or "100 commands through Drizzle". */
function sizeLabel({ commands, drizzle }: { commands: number; drizzle?: boolean }): string {
  return `${commands} commands${drizzle ? " through Drizzle" : ""}`;
}

async function measureEdits(
  size: (typeof SIZES)[number],
): Promise<Omit<WatchRuns, "commands" | "target">> {
  const { commands, drizzle = false } = size;
  const app = await writeSyntheticApp(commands, `watch-${commands}${drizzle ? "-drizzle" : ""}`, {
    drizzle,
  });
  const watcher = spawnNode([
    ...LIVECMD,
    "codegen",
    "--watch",
    "--app",
    app.appFile,
    "--out",
    app.outDir,
  ]);
  const lines = new LineStream(watcher.stdout!);
  const editToWritten: number[] = [];
  const pipeline: number[] = [];
  const written: number[] = [];
  try {
    await lines.next(/^watching /, TIMEOUT_MS);
    for (let edit = 1; edit <= EDITS; edit++) {
      await lines.settle(QUIET_MS);
      // A different file each time, each edit changing a description, so the output changes.
      const index = (edit * 37) % commands;
      const started = performance.now();
      await writeFile(app.commandFiles[index]!, commandModule(app.names[index]!, edit, drizzle));
      const line = await lines.next(/: [1-9]\d* written/, TIMEOUT_MS);
      editToWritten.push(line.at - started);
      pipeline.push(reportedMs({ stdout: line.text }));
      written.push(Number(/: (\d+) written/.exec(line.text)![1]));
    }
  } finally {
    watcher.kill();
  }
  return {
    edit: figureOf(`${sizeLabel(size)}: one-file edit → "written" line`, "ms", editToWritten),
    own: figureOf(
      `${sizeLabel(size)}: the regeneration, by the watcher's own timer`,
      "ms",
      pipeline,
    ),
    written: written.sort((a, b) => a - b)[written.length >> 1]!,
  };
}
