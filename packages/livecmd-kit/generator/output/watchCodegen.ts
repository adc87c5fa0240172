import { watch } from "node:fs";
import path from "node:path";
import { openAppProject, type AppProject } from "../discover/createProject.ts";
import { generateFor, type CodegenOptions } from "../runCodegen.ts";
import { surveyOutputFolder } from "./outputFolder.ts";
import { writeOutputs } from "./writeOutputs.ts";

const DEBOUNCE_MS = 50;

/**
 * Regenerates on every change under the app's folder. The ts-morph Project stays alive between
 * runs, so an edit costs a re-analysis, not a cold start. Errors are printed and watching goes on.
 */
export async function watchCodegen(options: Omit<CodegenOptions, "check">): Promise<void> {
  const appFile = path.resolve(options.cwd, options.app);
  const opened = openAppProject(options);
  if (!opened.ok) return options.log(`livecmd codegen: ${opened.problem}`);
  const appProject: AppProject = opened;
  const outDir = path.resolve(options.cwd, options.out);
  const watched = path.dirname(appFile);
  const run = () =>
    generateOnce(appProject, options, outDir).catch((error: Error) =>
      options.log(`codegen failed: ${error.message}`),
    );
  await run();
  let timer: NodeJS.Timeout | undefined;
  const changed = new Set<string>();
  const onChange = (folder: string, file: string | Buffer | null) => {
    if (!file) return;
    const absolute = path.join(folder, file.toString());
    if (absolute.startsWith(outDir + path.sep) || !/\.(ts|tsx|mts|cts)$/.test(absolute)) return;
    changed.add(absolute);
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const file of changed) refresh(appProject, file);
      changed.clear();
      void run().then(watchSources);
    }, DEBOUNCE_MS);
  };
  // One plain watch per folder the app's sources are in (more as the app reaches new ones):
  // Node's recursive watch on Linux scans subfolders after it returns, so an edit made right
  // after "watching" could go unseen.
  const watching = new Set<string>();
  const watchSources = () => {
    for (const folder of sourceFolders(appProject, watched)) {
      if (watching.has(folder)) continue;
      watching.add(folder);
      watch(folder, (_event, file) => onChange(folder, file));
    }
  };
  watchSources();
  options.log(
    `watching ${path.relative(options.cwd, watched) || "."}/ for changes (Ctrl-C to stop)`,
  );
  await new Promise(() => {});
}

async function generateOnce(
  appProject: AppProject,
  options: Omit<CodegenOptions, "check">,
  outDir: string,
): Promise<void> {
  const started = performance.now();
  const generation = generateFor(options, appProject);
  if (!generation.ok) return options.log(generation.problem);
  const folder = await surveyOutputFolder(outDir, generation.outputs, {
    cwd: options.cwd,
    appFile: path.resolve(options.cwd, options.app),
    force: options.force,
  });
  if (!folder.ok) return options.log(`livecmd codegen: ${folder.problem}; nothing was written.`);
  const report = await writeOutputs(outDir, generation.outputs, folder.extras);
  options.log(
    `${options.out}/: ${report.written.length} written, ${report.removed.length} removed (${Math.round(performance.now() - started)} ms)`,
  );
}

/** The app module's folder and every folder below it that holds one of the app's loaded sources. */
function sourceFolders({ project }: AppProject, appFolder: string): string[] {
  const folders = new Set([appFolder]);
  for (const sourceFile of project.getSourceFiles()) {
    const folder = path.dirname(sourceFile.getFilePath());
    if (
      folder.startsWith(appFolder + path.sep) &&
      !folder.includes(`${path.sep}node_modules${path.sep}`)
    )
      folders.add(folder);
  }
  return [...folders];
}

function refresh({ project }: AppProject, file: string): void {
  const sourceFile = project.getSourceFile(file);
  // A deleted file is forgotten by the refresh; a new one is picked up when the app reaches it.
  if (sourceFile) sourceFile.refreshFromFileSystemSync();
  else project.addSourceFileAtPathIfExists(file);
}
