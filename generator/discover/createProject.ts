import { Project, ts } from "ts-morph";

/**
 * The one place that builds the ts-morph Project. Compiler options are fixed rather than read
 * from the app's tsconfig, so output cannot depend on a local tsconfig tweak; only the files
 * the app module reaches are loaded.
 */
export function createProject(): Project {
  return new Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      resolveJsonModule: true,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  });
}

export function loadApp(project: Project, appFile: string) {
  const sourceFile = project.addSourceFileAtPath(appFile);
  project.resolveSourceFileDependencies();
  return sourceFile;
}
