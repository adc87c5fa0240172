import { writeFile } from "node:fs/promises";
import { coldRuns, reportedMs } from "./codegen.bench.ts";
import { LineStream, LIVECMD, spawnNode } from "./lib/processes.ts";
import { figureOf, type BenchModule, type Comparison } from "./lib/section.ts";
import { commandModule, writeSyntheticApp } from "./lib/syntheticApp.ts";

const COMMANDS = 100;
const EDITS = 9;
/** Long enough for a second file-system event of the same write to have shown up. */
const QUIET_MS = 400;
const TIMEOUT_MS = 120_000;

export const watchBench: BenchModule = {
  async run(context) {
    const cold = await coldRuns(context, COMMANDS);
    context.log(`watch: ${COMMANDS} commands, ${EDITS} one-file edits`);
    const app = await writeSyntheticApp(COMMANDS, `watch-${COMMANDS}`);
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
    try {
      await lines.next(/^watching /, TIMEOUT_MS);
      for (let edit = 1; edit <= EDITS; edit++) {
        await lines.settle(QUIET_MS);
        // A different file each time, each edit changing a description, so the output changes.
        const index = (edit * 37) % COMMANDS;
        const started = performance.now();
        await writeFile(app.commandFiles[index]!, commandModule(app.names[index]!, edit));
        const written = await lines.next(/: [1-9]\d* written/, TIMEOUT_MS);
        editToWritten.push(written.at - started);
        pipeline.push(reportedMs({ stdout: written.text }));
      }
    } finally {
      watcher.kill();
    }
    const edit = figureOf(
      `${COMMANDS} commands: one-file edit → "written" line`,
      "ms",
      editToWritten,
    );
    const own = figureOf(
      `${COMMANDS} commands: the regeneration, by the watcher's own timer`,
      "ms",
      pipeline,
    );
    const comparisons: Comparison[] = [
      {
        label: `watch ${COMMANDS}: one-file edit → written`,
        value: edit.median,
        unit: "ms",
        target: { op: "<", value: 300 },
      },
      {
        label: `watch ${COMMANDS}: cold \`livecmd codegen\` / watch edit`,
        value: cold.write.median / edit.median,
        unit: "x",
      },
    ];
    return {
      title: "Codegen in watch mode after a one-file edit",
      method: [
        `\`node packages/livecmd/bin/livecmd.js codegen --watch\` on a fresh ${COMMANDS}-command synthetic app (see the cold row); after its first generation, ${EDITS} edits, each rewriting one command module with a new description.`,
        `Timed from just before the write to the arrival of the watcher's next "N written" line, so it includes file-system notification and the watcher's 50 ms debounce; the watcher is left quiet for ${QUIET_MS} ms between edits.`,
        "The cold figure is the cold row's `livecmd codegen` on an app of the same size.",
      ],
      figures: [edit, own, cold.write],
      comparisons,
      notes: [
        `Of the ${Math.round(edit.median)} ms from edit to "written", the regeneration itself took ${Math.round(own.median)} ms: every edit re-analyses the app (on the warm Project, which re-parses only the changed file) and re-renders every output file in full.`,
      ],
    };
  },
};
