/**
 * The floor for cold codegen: what any ts-morph based generator pays before its own work, on the
 * same files and compiler options as `livecmd codegen` (the app's own tsconfig, found the same
 * way). Run as its own process, like the CLI:
 * `node --import tsx bench/peers/bareLoad.ts <app file>`.
 */
import path from "node:path";
import { createAppProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";

const appFile = process.argv[2];
if (!appFile) throw new Error("usage: bareLoad.ts <app file>");
const { project } = createAppProject(path.resolve(appFile));
project.addSourceFileAtPath(path.resolve(appFile));
project.resolveSourceFileDependencies();
// ts-morph makes the checker on first use: asking for the compiler's makes it, binding every file,
// as codegen's first question of a type does.
void project.getTypeChecker().compilerObject;
process.stdout.write(`loaded ${project.getSourceFiles().length} files\n`);
