import { watch } from "node:fs";
import path from "node:path";
import type { Project, SourceFile } from "ts-morph";
import { affectedFiles } from "./discover/affectedFiles.ts";
import { openAppProject, type AppProject } from "./discover/createProject.ts";
import { changeLines } from "./output/changeLines.ts";
import type { OutputSet } from "./model.ts";
import { Reuse } from "./reuse.ts";
import { EXIT, generateFor, type CodegenOptions } from "./runCodegen.ts";
import { surveyOutputFolder } from "./output/outputFolder.ts";
import {
  writeFiles,
  writeOutputs,
  type FileBytes,
  type WriteReport,
} from "./output/writeOutputs.ts";
import { printedFile, sameBytes, type PrintedFile } from "./render/layout/code.ts";

/** Long enough to take an editor's save (a truncate and a write, or a rename) as one change. */
const DEBOUNCE_MS = 20;

/**
 * Regenerates on every change under the app's folder. The ts-morph Project stays alive between
 * runs, and so does what each stage made (`Reuse`): an edit re-reads and re-analyses only the
 * commands of the changed files and of the files importing them, prints only their parts of
 * each output again, and writes only the files whose bytes changed. Errors are printed and
 * watching goes on.
 */
export async function watchCodegen(options: Omit<CodegenOptions, "check">): Promise<number> {
  const appFile = path.resolve(options.cwd, options.app);
  const opened = openAppProject(options);
  if (!opened.ok) {
    options.log(`livecmd codegen: ${opened.problem}`);
    return EXIT.inputError;
  }
  const session = new WatchSession(opened, options);
  const watched = path.dirname(appFile);
  const run = (changed: string[]) =>
    session
      .generate(changed)
      .catch((error: Error) => options.log(`codegen failed: ${error.message}`));
  await run([]);
  session.prepareForEdits();
  let timer: NodeJS.Timeout | undefined;
  const changed = new Set<string>();
  const onChange = (folder: string, file: string | Buffer | null) => {
    if (!file) return;
    const absolute = path.join(folder, file.toString());
    if (absolute.startsWith(session.outDir + path.sep) || !/\.(ts|tsx|mts|cts)$/.test(absolute))
      return;
    changed.add(absolute);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed];
      changed.clear();
      void run(files).then(watchSources);
    }, DEBOUNCE_MS);
  };
  // One plain watch per folder the app's sources are in (more as the app reaches new ones):
  // Node's recursive watch on Linux scans subfolders after it returns, so an edit made right
  // after "watching" could go unseen.
  const watching = new Set<string>();
  const watchSources = () => {
    for (const folder of sourceFolders(opened.project, watched)) {
      if (watching.has(folder)) continue;
      watching.add(folder);
      watch(folder, (_event, file) => onChange(folder, file));
    }
  };
  watchSources();
  options.log(
    `watching ${path.relative(options.cwd, watched) || "."}/ for changes (Ctrl-C to stop)`,
  );
  return new Promise(() => {});
}

/** One `codegen --watch`: the app's Project, what the last generation made, what it wrote. */
export class WatchSession {
  readonly outDir: string;
  readonly #reuse = new Reuse();
  /**
   * What each file was last written (or found up to date) as: its text, or the `PrintedFile`
   * its pieces were written from. A run writes only what differs, and a file printed in
   * pieces is neither joined nor compared byte by byte.
   */
  #written = new Map<string, string | PrintedFile>();
  /** The files the last run generated, once the folder was found codegen's to write. */
  #surveyed: string | undefined;

  constructor(
    private readonly appProject: AppProject,
    private readonly options: Omit<CodegenOptions, "check">,
  ) {
    this.outDir = path.resolve(options.cwd, options.out);
  }

  /** Regenerates after `changed` (absolute paths; none: the first run) and writes what changed. */
  async generate(changed: readonly string[]): Promise<void> {
    const started = performance.now();
    this.#reuse.nextGeneration(changed.length === 0 ? "all" : this.#refresh(changed));
    const generation = generateFor(this.options, this.appProject, this.#reuse);
    if (!generation.ok) return this.options.log(generation.problem);
    const extras = await this.#survey(generation.outputs);
    if (!extras) return;
    const report = this.#write(generation.outputs, extras);
    this.options.log(
      [
        ...changeLines(this.options.out, report.written, report.removed),
        `${this.options.out}/: ${report.written.length} written, ${report.removed.length} removed (${Math.round(performance.now() - started)} ms)`,
      ].join("\n"),
    );
  }

  /**
   * Writes the files whose bytes differ from what was last written, a file printed in pieces
   * by its pieces' bytes; a file not written before is compared with the disk's.
   */
  #write(outputs: OutputSet, extras: string[]): WriteReport {
    const unseen = new Map<string, string>();
    const stale = new Map<string, FileBytes>();
    const written = new Map<string, string | PrintedFile>();
    for (const [file, text] of outputs) {
      const printed = printedFile(this.#reuse, file);
      const last = this.#written.get(file);
      if (last === undefined) unseen.set(file, text);
      else if (changedSince(last, text, printed)) stale.set(file, printed?.bytes ?? text);
      written.set(file, printed ?? text);
    }
    writeFiles(this.outDir, stale, []);
    const report = writeOutputs(this.outDir, unseen, extras);
    this.#written = written;
    const wrote = new Set([...stale.keys(), ...report.written]);
    return { ...report, written: [...outputs.keys()].filter((file) => wrote.has(file)) };
  }

  /**
   * Does now, off the first edit's clock, what ts-morph would do on it. Its first program was
   * made with the app module as its one root (before the files it imports were loaded), and an
   * edit's program, rooted at every loaded file, could not reuse that one's structure: it would
   * resolve every import of the app again. And ts-morph indexes which file imports which on
   * first asking.
   */
  prepareForEdits(): void {
    const { project } = this.appProject;
    // Adding a file and removing it is ts-morph's public way to have its next program rooted at
    // every loaded file (in memory only: the folder is codegen's, and nothing is saved).
    project.removeSourceFile(
      project.createSourceFile(path.join(this.outDir, "livecmd-watch-roots.ts"), "", {
        overwrite: true,
      }),
    );
    project.getSourceFiles()[0]?.getReferencingSourceFiles();
  }

  /**
   * The files codegen wrote before and no longer generates (to remove), or undefined when the
   * folder is not codegen's to write (said). Surveyed again only when the set of generated
   * files changes: the files of the last set are codegen's own.
   */
  async #survey(outputs: OutputSet): Promise<string[] | undefined> {
    const names = [...outputs.keys()].join("\n");
    if (names === this.#surveyed) return [];
    const folder = await surveyOutputFolder(this.outDir, outputs, {
      cwd: this.options.cwd,
      appFile: path.resolve(this.options.cwd, this.options.app),
      force: this.options.force,
    });
    if (!folder.ok) {
      this.options.log(`livecmd codegen: ${folder.problem}; nothing was written.`);
      return undefined;
    }
    this.#surveyed = names;
    return folder.extras;
  }

  /**
   * Reads the changed files again, and says which sources the edit can have changed: those
   * importing a changed file before the edit (it may be gone now) and after it.
   */
  #refresh(changed: readonly string[]): Set<SourceFile> | "all" {
    const { project } = this.appProject;
    const before = affectedFiles(sourcesAt(project, changed));
    for (const file of changed) refresh(project, file);
    const after = affectedFiles(sourcesAt(project, changed));
    return before === "all" || after === "all" ? "all" : new Set([...before, ...after]);
  }
}

function sourcesAt(project: Project, files: readonly string[]): SourceFile[] {
  return files.flatMap((file) => project.getSourceFile(file) ?? []);
}

/** The app module's folder and every folder below it that holds one of the app's loaded sources. */
function sourceFolders(project: Project, appFolder: string): string[] {
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

function refresh(project: Project, file: string): void {
  const sourceFile = project.getSourceFile(file);
  // A deleted file is forgotten by the refresh; a new one is picked up when the app reaches it.
  if (sourceFile) sourceFile.refreshFromFileSystemSync();
  else project.addSourceFileAtPathIfExists(file);
}

/** Whether a file's new printing differs from what was last written: by printings when both are. */
function changedSince(
  last: string | PrintedFile,
  text: string,
  printed: PrintedFile | undefined,
): boolean {
  if (printed && typeof last !== "string") return !sameBytes(last, printed);
  return text !== (typeof last === "string" ? last : last.text);
}
