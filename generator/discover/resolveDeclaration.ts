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
  if (Node.isPropertyAccessExpression(expression)) {
    const exported = moduleOf(expression.getExpression())?.getExport(expression.getName());
    if (exported) return variableOf(exported);
  }
  return variableOf(expression.getSymbol());
}

/**
 * The module a namespace import such as `customers` (from `import * as customers`) names, if
 * it names one. Going through the module's exports finds `customers.customers_show` without
 * type-checking the expression, which would infer the type of every command() call it touches.
 */
export function moduleOf(expression: Node): MorphSymbol | undefined {
  if (!Node.isIdentifier(expression)) return undefined;
  const symbol = expression.getSymbol();
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  return target?.getDeclarations().some(Node.isSourceFile) ? target : undefined;
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
