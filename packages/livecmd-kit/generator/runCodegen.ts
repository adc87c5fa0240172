import path from "node:path";
import { openAppProject, type AppProject } from "./discover/createProject.ts";
import { changeLines } from "./output/changeLines.ts";
import { checkOutputs, type CheckProblem } from "./output/checkOutputs.ts";
import { formatDiagnostics } from "./output/formatDiagnostics.ts";
import { misplacedOutput, surveyOutputFolder } from "./output/outputFolder.ts";
import { writeOutputs } from "./output/writeOutputs.ts";
import { generate, type Generation } from "./pipeline.ts";
import type { Reuse } from "./reuse.ts";
import type { CommandEntry } from "livecmd/internal";

export interface CodegenOptions {
  /** The app module, relative to `cwd`. */
  app: string;
  /** The output folder, relative to `cwd`. */
  out: string;
  check: boolean;
  /** Write although `out` holds files codegen did not write (they stay untouched). */
  force: boolean;
  /** The tsconfig to read the app with; the nearest one above the app when absent. */
  tsconfig?: string;
  cwd: string;
  log: (text: string) => void;
  /** The command that regenerates, as generated files and messages tell it (`npx livecmd codegen`). */
  rerun: string;
}

/** Exit codes, as `livecmd codegen --help` documents them. */
export const EXIT = { ok: 0, stale: 1, inputError: 2 } as const;

export async function runCodegen(options: CodegenOptions): Promise<number> {
  const started = performance.now();
  const outDir = path.resolve(options.cwd, options.out);
  const rules = { cwd: options.cwd, appFile: path.resolve(options.cwd, options.app) };
  const refused = (problem: string) => {
    options.log(`livecmd codegen: ${problem}; nothing was written.`);
    return EXIT.inputError;
  };
  const misplaced = misplacedOutput(outDir, rules);
  if (misplaced) return refused(misplaced);
  const generation = generateFor(options);
  if (!generation.ok) {
    options.log(generation.problem);
    return EXIT.inputError;
  }
  const { outputs } = generation;
  const folder = await surveyOutputFolder(outDir, outputs, { ...rules, force: options.force });
  if (!folder.ok) return refused(folder.problem);
  const elapsed = () => `${Math.round(performance.now() - started)} ms`;
  if (options.check) {
    const problems = await checkOutputs(outDir, outputs, folder.extras);
    options.log(
      problems.length === 0
        ? `${options.out}/ is up to date (${outputs.size} files, ${elapsed()})`
        : describeProblems(options, problems),
    );
    return problems.length === 0 ? EXIT.ok : EXIT.stale;
  }
  const report = writeOutputs(outDir, outputs, folder.extras);
  options.log(
    [
      ...changeLines(options.out, report.written, report.removed),
      ...unwatchable(generation.plan.catalog.commands),
      `${options.out}/: ${report.written.length} written, ${report.removed.length} removed, ${report.unchanged} unchanged (${elapsed()})`,
    ].join("\n"),
  );
  return EXIT.ok;
}

/** The app read with its tsconfig and generated, or the one message that says why it cannot be. */
export function generateFor(
  options: Pick<CodegenOptions, "app" | "tsconfig" | "cwd" | "rerun">,
  project?: AppProject,
  reuse?: Reuse,
): (Generation & { ok: true }) | { ok: false; problem: string } {
  let appProject = project;
  if (!appProject) {
    const opened = openAppProject(options);
    if (!opened.ok) return { ok: false, problem: `livecmd codegen: ${opened.problem}` };
    appProject = opened;
  }
  const generation = generate(
    appProject.project,
    { appFile: options.app, cwd: options.cwd, rerun: options.rerun },
    reuse,
  );
  return generation.ok
    ? generation
    : { ok: false, problem: formatDiagnostics(generation.diagnostics) };
}

/**
 * A note per live command an agent cannot watch (no template and no resource: `reason` says
 * why), so its author learns it at codegen and not from an agent; `inspect` shows the same.
 */
function unwatchable(commands: readonly CommandEntry[]): string[] {
  return commands
    .filter((entry) => entry.live && entry.reason !== null)
    .map(
      (entry) =>
        `note: ${entry.name} is live but cannot be watched${entry.view ? " (nor its live view kept current)" : ""}: ${entry.reason}`,
    );
}

function describeProblems({ out, rerun }: CodegenOptions, problems: CheckProblem[]): string {
  const lines = problems.map((problem) => {
    const label = { stale: "stale:   ", missing: "missing: ", extra: "extra:   " }[problem.kind];
    return `${label}${out}/${problem.file}${problem.diff ? `\n${problem.diff}` : ""}`;
  });
  return `${lines.join("\n")}\n${problems.length} generated file(s) out of date. Run \`${rerun}\` and commit the result.`;
}
