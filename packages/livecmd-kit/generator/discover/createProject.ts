import { existsSync } from "node:fs";
import path from "node:path";
import { Project, ts, type CompilerOptions } from "ts-morph";
import { JAVASCRIPT_MODULE, typeScriptSourceOf } from "./compiledApp.ts";

/** Compiler options for an app with no tsconfig.json above it. */
const STANDALONE_OPTIONS: CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  strict: true,
  types: [],
};

/**
 * Set whatever the tsconfig says: codegen only reads (no emit), needs no verdict on libraries,
 * and needs `null` kept apart from other types, or a nullable argument would lose its `null`.
 */
const ALWAYS: CompilerOptions = { noEmit: true, skipLibCheck: true, strictNullChecks: true };

/** The ts-morph Project an app is read with, and the tsconfig it follows (undefined: none). */
export interface AppProject {
  project: Project;
  tsconfig: string | undefined;
}

/** A tsconfig that cannot be read; codegen stops with its message (exit 2). */
export class ProjectError extends Error {}

/**
 * The Project for the app module `appFile` (absolute): compiled as the app's own tsconfig says
 * (`paths`, `baseUrl`, module resolution), so imports resolve for codegen as they do for tsc.
 * The tsconfig is `tsconfig` when given, else the nearest tsconfig.json above the app; in a
 * solution-style one (`files: []` and `references`), the referenced project holding the app.
 * Only the files the app module reaches are loaded.
 */
export function createAppProject(appFile: string, tsconfig?: string): AppProject {
  const { options, configFile } = appOptions(appFile, tsconfig);
  return { project: projectWith(options), tsconfig: configFile };
}

function appOptions(appFile: string, tsconfig: string | undefined) {
  const configFile = tsconfig ?? nearestTsconfig(path.dirname(appFile));
  const options = configFile ? optionsOwning(appFile, configFile) : STANDALONE_OPTIONS;
  return { options, configFile };
}

/** `createAppProject` for the CLI's paths (relative to `cwd`): a tsconfig that cannot be read is a message. */
export function openAppProject(paths: {
  app: string;
  tsconfig?: string | undefined;
  cwd: string;
}): ({ ok: true } & AppProject) | { ok: false; problem: string } {
  const appFile = path.resolve(paths.cwd, paths.app);
  const tsconfig = paths.tsconfig && path.resolve(paths.cwd, paths.tsconfig);
  try {
    if (JAVASCRIPT_MODULE.test(appFile))
      return { ok: false, problem: compiledAppProblem(paths, appFile, tsconfig) };
    return { ok: true, ...createAppProject(appFile, tsconfig) };
  } catch (error) {
    if (error instanceof ProjectError) return { ok: false, problem: error.message };
    throw error;
  }
}

/**
 * Why a JavaScript app module is not read (TypeScript reads no types from it, and without
 * `allowJs` not the file at all), naming the TypeScript module it was compiled from if found.
 */
function compiledAppProblem(
  paths: { app: string; cwd: string },
  appFile: string,
  tsconfig: string | undefined,
): string {
  const { options, configFile } = appOptions(appFile, tsconfig);
  const source = typeScriptSourceOf(
    appFile,
    options,
    configFile ? path.dirname(configFile) : paths.cwd,
  );
  const pass = source
    ? `--app ${path.relative(paths.cwd, source).split(path.sep).join("/")}`
    : "--app with the TypeScript module it is compiled from";
  return `${paths.app} is JavaScript; the app's commands are read from its TypeScript source, whose types make the templates and their parsers: pass ${pass}`;
}

/** A Project with the standalone options (tests and benchmarks of the stages themselves). */
export function createProject(): Project {
  return projectWith(STANDALONE_OPTIONS);
}

/** The app module's source in `project`, with every file it imports (the kit reads it, never runs it). */
export function addAppSource(project: Project, appFile: string) {
  const sourceFile = project.addSourceFileAtPath(appFile);
  project.resolveSourceFileDependencies();
  return sourceFile;
}

function projectWith(options: CompilerOptions): Project {
  return new Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: { ...options, ...ALWAYS },
  });
}

function nearestTsconfig(folder: string): string | undefined {
  for (let current = folder; ; current = path.dirname(current)) {
    const candidate = path.join(current, "tsconfig.json");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(current) === current) return undefined;
  }
}

function optionsOwning(appFile: string, configFile: string): CompilerOptions {
  const parsed = parseTsconfig(configFile);
  if (holds(parsed, appFile)) return parsed.options;
  for (const reference of parsed.projectReferences ?? []) {
    const referenced = parseTsconfig(ts.resolveProjectReferencePath(reference));
    if (holds(referenced, appFile)) return referenced.options;
  }
  return parsed.options;
}

function holds(parsed: ts.ParsedCommandLine, appFile: string): boolean {
  const normalized = path.normalize(appFile);
  return parsed.fileNames.some((file) => path.normalize(file) === normalized);
}

function parseTsconfig(configFile: string): ts.ParsedCommandLine {
  if (!existsSync(configFile)) throw new ProjectError(`the tsconfig ${configFile} does not exist`);
  const problems: string[] = [];
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) =>
      void problems.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")),
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, undefined, host);
  const errors = [
    ...problems,
    ...(parsed?.errors ?? [])
      .filter(isFatal)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")),
  ];
  if (!parsed || errors.length > 0)
    throw new ProjectError(`cannot read ${configFile}: ${errors.join("; ") || "unknown error"}`);
  return parsed;
}

/** "No inputs were found" is fine here: codegen adds the app module itself. */
function isFatal(diagnostic: ts.Diagnostic): boolean {
  return diagnostic.category === ts.DiagnosticCategory.Error && diagnostic.code !== 18003;
}
