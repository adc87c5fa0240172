import { ts } from "ts-morph";

/**
 * Asks the checker what any generator of livecmd's outputs must: each `command(options, handler)`
 * handler's parameter types and return type in `files`, which TypeScript infers by resolving the
 * generic call (`ctx` and the result are contextually typed). Returns how many it asked of.
 */
export function askHandlerTypes(checker: ts.TypeChecker, files: readonly ts.SourceFile[]): number {
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
  for (const file of files) if (!file.isDeclarationFile) visit(file);
  return asked;
}

function isCommandCall(call: ts.CallExpression): boolean {
  return ts.isIdentifier(call.expression) && call.expression.text === "command";
}
