/**
 * The floor for cold codegen: what any ts-morph based generator pays before its own work, on the
 * same files and compiler options as `livecmd codegen` (the app's own tsconfig, found the same
 * way). Run as its own process, like the CLI:
 * `node --import tsx bench/peers/bareLoad.ts <app file> [--types]`.
 *
 * With `--types` it also asks the checker what any generator of the same outputs must: each
 * handler's parameter and return types (`handlerTypes.ts`).
 */
import path from "node:path";
import { createAppProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";
import { askHandlerTypes } from "./handlerTypes.ts";

const [appFile, flag] = process.argv.slice(2);
if (!appFile || (flag !== undefined && flag !== "--types"))
  throw new Error("usage: bareLoad.ts <app file> [--types]");
const { project } = createAppProject(path.resolve(appFile));
project.addSourceFileAtPath(path.resolve(appFile));
project.resolveSourceFileDependencies();
// ts-morph makes the checker on first use: asking for the compiler's makes it, binding every file,
// as codegen's first question of a type does.
const checker = project.getTypeChecker().compilerObject;
const handlers =
  flag === "--types"
    ? askHandlerTypes(checker, project.getProgram().compilerObject.getSourceFiles())
    : 0;
process.stdout.write(
  `loaded ${project.getSourceFiles().length} files, ${handlers} handlers typed\n`,
);
