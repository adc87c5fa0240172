import {
  Node,
  SyntaxKind,
  type BindingElement,
  type ImportDeclaration,
  type SourceFile,
  type Symbol as MorphSymbol,
  type VariableDeclaration,
} from "ts-morph";

/**
 * Follows import aliases, and names taken out of a module (`const { a, b: c } = commands`), to
 * the variable a symbol finally names, if it names one.
 */
export function variableOf(symbol: MorphSymbol | undefined): VariableDeclaration | undefined {
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  const declaration = target?.getValueDeclaration() ?? target?.getDeclarations()[0];
  if (Node.isBindingElement(declaration)) return destructuredVariable(declaration);
  return Node.isVariableDeclaration(declaration) ? declaration : undefined;
}

/** The export an element of `const { ... } = commands` takes, where `commands` is a namespace import. */
function destructuredVariable(element: BindingElement): VariableDeclaration | undefined {
  const holder = element.getParent().getParent();
  const source = Node.isVariableDeclaration(holder) ? holder.getInitializer() : undefined;
  const name = element.getPropertyNameNode()?.getText() ?? element.getName();
  const exported = source && moduleOf(source)?.getExport(name);
  return exported ? variableOf(exported) : undefined;
}

/** The variable an expression such as `customers_show` or `customers.customers_show` refers to. */
export function variableOfExpression(expression: Node): VariableDeclaration | undefined {
  if (Node.isShorthandPropertyAssignment(expression))
    return variableOf(expression.getValueSymbol());
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

/** True when `callee` resolves to the function `name` exported by livecmd's `runtime/<module>`. */
export function isLivecmdFunction(callee: Node, name: string, module: string): boolean {
  const symbol = calleeSymbol(callee);
  const target = symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol;
  return (target?.getDeclarations() ?? []).some(
    (declaration) =>
      Node.isFunctionDeclaration(declaration) &&
      declaration.getName() === name &&
      isLivecmdModule(declaration.getSourceFile(), module),
  );
}

/**
 * What a callee names, where the checker can tell without inferring a type: a name (`defineApp`)
 * or a namespace import's member (`livecmd.defineApp`). Any other callee is no livecmd function,
 * and asking for its symbol would infer the type of the chain before it: for an ORM's
 * `orm.select().from(notes).where`, about 30 ms of generic inference a call, on every watch edit.
 */
function calleeSymbol(callee: Node): MorphSymbol | undefined {
  if (Node.isIdentifier(callee)) return callee.getSymbol();
  if (Node.isPropertyAccessExpression(callee))
    return moduleOf(callee.getExpression())?.getExport(callee.getName());
  return undefined;
}

/**
 * Whether `file` is livecmd's `runtime/<module>`: its source in this repository, or the
 * declarations an installed package ships (`dist/runtime/<module>.d.ts`).
 */
export function isLivecmdModule(file: SourceFile, module: string): boolean {
  const filePath = file.getFilePath();
  return filePath.endsWith(`/runtime/${module}.ts`) || filePath.endsWith(`/runtime/${module}.d.ts`);
}

/**
 * The import that the leading name of `expression` (`tickets` in `tickets.tickets_show`) comes
 * through, when that import's module does not resolve: then nothing it names can be found.
 */
export function unresolvedImport(expression: Node): ImportDeclaration | undefined {
  let head = Node.isSpreadAssignment(expression) ? expression.getExpression() : expression;
  while (Node.isPropertyAccessExpression(head)) head = head.getExpression();
  if (!Node.isIdentifier(head) && !Node.isShorthandPropertyAssignment(head)) return undefined;
  const symbol = Node.isShorthandPropertyAssignment(head)
    ? head.getValueSymbol()
    : head.getSymbol();
  for (const declaration of symbol?.getDeclarations() ?? []) {
    const importDeclaration = declaration.getFirstAncestorByKind(SyntaxKind.ImportDeclaration);
    if (importDeclaration && !importDeclaration.getModuleSpecifierSourceFile())
      return importDeclaration;
  }
  return undefined;
}
