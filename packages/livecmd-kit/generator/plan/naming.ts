/** `orders_between` -> `OrdersBetween`: the prefix of a command's generated type names. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

export function variablesTypeName(command: string): string {
  return `${pascalCase(command)}Variables`;
}

export function resultTypeName(command: string): string {
  return `${pascalCase(command)}Result`;
}

/** A string as a TypeScript string literal (JSON's escaping is valid TypeScript). */
export function literal(value: unknown): string {
  return JSON.stringify(value);
}
