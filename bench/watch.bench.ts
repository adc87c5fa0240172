import { writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createAppProject } from "../packages/livecmd-kit/generator/discover/createProject.ts";
import { coldRuns, reportedMs } from "./codegen.bench.ts";
import { LineStream, LIVECMD, REPO_ROOT, spawnNode } from "./lib/processes.ts";
import { figureOf, type BenchModule, type Comparison, type Figure } from "./lib/section.ts";
import { commandModule, writeSyntheticApp, type SyntheticApp } from "./lib/syntheticApp.ts";
import { askHandlerTypes } from "./peers/handlerTypes.ts";

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
  /** The same edits' floor: the edited handler's types asked again with ts-morph (`typedEdits`). */
  typed: Figure;
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
    for (const run of runs)
      comparisons.push({
        label: `watch ${sizeLabel(run)}: one-file edit → written / the edited handler typed again`,
        value: run.edit.median / run.typed.median,
        unit: "x",
      });
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
        `The floor of the same edits, in the bench's process once the watcher is gone: the app loaded with ts-morph as codegen loads it, then ${EDITS} edits more of the same kind, each re-read (\`refreshFromFileSystemSync\`) and its handler's parameter and return types asked of the next program's checker (\`bench/peers/handlerTypes.ts\`, what the cold row's typed load asks of every handler), timed from the re-read; one untimed edit first, as the watcher prepares for edits before its first. It is what any generator reading these types with TypeScript pays for an edit, and for a handler whose result Drizzle's types infer, most of it is that inference in a checker made anew.`,
        "The cold figure is the cold row's `livecmd codegen` on an app of 100 commands.",
      ],
      figures: [...runs.flatMap((run) => [run.edit, run.own, run.typed]), cold.write],
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
  const typed = typedEdits(app, drizzle);
  return {
    typed: figureOf(`${sizeLabel(size)}: the edited handler typed again`, "ms", typed),
    edit: figureOf(`${sizeLabel(size)}: one-file edit → "written" line`, "ms", editToWritten),
    own: figureOf(
      `${sizeLabel(size)}: the regeneration, by the watcher's own timer`,
      "ms",
      pipeline,
    ),
    written: written.sort((a, b) => a - b)[written.length >> 1]!,
  };
}

/**
 * `EDITS` edits of the kind the watcher was timed on, each a module rewritten with a new
 * description, and for each the time to re-read it and ask its handler's types of the next
 * program's checker: the floor of an edit for a generator that reads types with ts-morph.
 */
function typedEdits(app: SyntheticApp, drizzle: boolean): number[] {
  const appFile = path.join(REPO_ROOT, app.appFile);
  const { project } = createAppProject(appFile);
  project.addSourceFileAtPath(appFile);
  project.resolveSourceFileDependencies();
  const times: number[] = [];
  for (let edit = 0; edit <= EDITS; edit++) {
    const index = (edit * 41) % app.names.length;
    writeFileSync(
      app.commandFiles[index]!,
      commandModule(app.names[index]!, EDITS + edit, drizzle),
    );
    const started = performance.now();
    const file = project.getSourceFileOrThrow(app.commandFiles[index]!);
    file.refreshFromFileSystemSync();
    askHandlerTypes(project.getTypeChecker().compilerObject, [file.compilerNode]);
    if (edit > 0) times.push(performance.now() - started);
  }
  return times;
}
