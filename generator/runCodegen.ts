import path from "node:path";
import { createProject } from "./discover/createProject.ts";
import { checkOutputs, type CheckProblem } from "./output/checkOutputs.ts";
import { formatDiagnostics } from "./output/formatDiagnostics.ts";
import { writeOutputs } from "./output/writeOutputs.ts";
import { generate } from "./pipeline.ts";

export interface CodegenOptions {
  app: string;
  out: string;
  check: boolean;
  cwd: string;
  log: (text: string) => void;
}

/** Exit codes, as `livecmd codegen --help` documents them. */
export const EXIT = { ok: 0, stale: 1, inputError: 2 } as const;

export async function runCodegen(options: CodegenOptions): Promise<number> {
  const started = performance.now();
  const generation = await generate(createProject(), { appFile: options.app, cwd: options.cwd });
  if (!generation.ok) {
    options.log(formatDiagnostics(generation.diagnostics));
    return EXIT.inputError;
  }
  const outDir = path.resolve(options.cwd, options.out);
  const elapsed = () => `${Math.round(performance.now() - started)} ms`;
  if (options.check) {
    const problems = await checkOutputs(outDir, generation.outputs);
    options.log(problems.length === 0 ? `${options.out}/ is up to date (${generation.outputs.size} files, ${elapsed()})` : describeProblems(options.out, problems));
    return problems.length === 0 ? EXIT.ok : EXIT.stale;
  }
  const report = await writeOutputs(outDir, generation.outputs);
  const changes = [...report.written.map((file) => `wrote ${options.out}/${file}`), ...report.removed.map((file) => `removed ${options.out}/${file}`)];
  options.log([...changes, `${options.out}/: ${report.written.length} written, ${report.removed.length} removed, ${report.unchanged} unchanged (${elapsed()})`].join("\n"));
  return EXIT.ok;
}

function describeProblems(out: string, problems: CheckProblem[]): string {
  const lines = problems.map((problem) => {
    const label = { stale: "stale:   ", missing: "missing: ", extra: "extra:   " }[problem.kind];
    return `${label}${out}/${problem.file}${problem.diff ? `\n${problem.diff}` : ""}`;
  });
  return `${lines.join("\n")}\n${problems.length} generated file(s) out of date. Run \`npm run codegen\` and commit the result.`;
}
