import * as prettier from "prettier";

/**
 * The layout the generator's output is held to: prettier with every option spelled out and no
 * config file consulted. The render stage prints this layout itself; prettier only checks it.
 */
export const PRETTIER_OPTIONS: prettier.Options = {
  printWidth: 100,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  quoteProps: "as-needed",
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
  proseWrap: "preserve",
};

export function prettierFormat(file: string, text: string): Promise<string> {
  return prettier.format(text, { ...PRETTIER_OPTIONS, parser: file.endsWith(".json") ? "json" : "typescript" });
}
