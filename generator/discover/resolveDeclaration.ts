import { Node, type Symbol as MorphSymbol, type VariableDeclaration } from "ts-morph";

/** Follows import aliases to the variable a symbol finally names, if it names one. */
export function variableOf(symbol: MorphSymbol | undefined): VariableDeclaration | undefined {
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  const declaration = target?.getValueDeclaration() ?? target?.getDeclarations()[0];
  return Node.isVariableDeclaration(declaration) ? declaration : undefined;
}

/** The variable an expression such as `customers_show` or `customers.customers_show` refers to. */
export function variableOfExpression(expression: Node): VariableDeclaration | undefined {
  if (Node.isShorthandPropertyAssignment(expression)) return variableOf(expression.getValueSymbol());
  return variableOf(expression.getSymbol());
}

/** True when `callee` resolves to the function `name` exported by livecmd's `runtime/<file>`. */
export function isLivecmdFunction(callee: Node, name: string, file: string): boolean {
  const symbol = callee.getSymbol();
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  return (target?.getDeclarations() ?? []).some(
    (declaration) =>
      Node.isFunctionDeclaration(declaration) &&
      declaration.getName() === name &&
      declaration.getSourceFile().getFilePath().endsWith(`/runtime/${file}`),
  );
}
