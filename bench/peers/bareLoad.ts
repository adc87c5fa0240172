/**
 * The floor for cold codegen: what any ts-morph based generator pays before its own work, on the
 * same files and compiler options as `livecmd codegen` (the app's own tsconfig, found the same
 * way). Run as its own process, like the CLI:
 * `node --import tsx bench/peers/bareLoad.ts <app file> [--types]`.
 *
 * With `--types` it also asks the checker what any generator of the same outputs must: each
 * `command(options, handler)` handler's parameter types and return type, which TypeScript infers
 * by resolving the generic call (`ctx` and the result are contextually typed).
 */
import path from "node:path";
import { ts } from "ts-morph";
import { createAppProject } from "../../packages/livecmd-kit/generator/discover/createProject.ts";

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
  flag === "--types" ? askHandlerTypes(checker, project.getProgram().compilerObject) : 0;
process.stdout.write(
  `loaded ${project.getSourceFiles().length} files, ${handlers} handlers typed\n`,
);

function askHandlerTypes(checker: ts.TypeChecker, program: ts.Program): number {
  let asked = 0;
  const visit = (node: ts.Node): void => {
    const handler =
      ts.isCallExpression(node) && isCommandCall(node) ? node.arguments[1] : undefined;
    if (handler && ts.isArrowFunction(handler)) {
      for (const parameter of handler.parameters) checker.getTypeAtLocation(parameter);
      const signature = checker.getSignatureFromDeclaration(handler);
      if (signature) checker.getReturnTypeOfSignature(signature);
      asked++;
    }
    ts.forEachChild(node, visit);
  };
  for (const file of program.getSourceFiles()) if (!file.isDeclarationFile) visit(file);
  return asked;
}

function isCommandCall(call: ts.CallExpression): boolean {
  return ts.isIdentifier(call.expression) && call.expression.text === "command";
}
