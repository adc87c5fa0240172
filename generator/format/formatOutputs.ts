import * as prettier from "prettier";
import type { OutputSet } from "../model.ts";

/** Every option spelled out, and no config file consulted: output must not depend on the machine. */
const OPTIONS: prettier.Options = {
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

export async function formatOutputs(outputs: OutputSet): Promise<OutputSet> {
  const formatted = new Map<string, string>();
  for (const [file, text] of outputs) {
    formatted.set(file, await prettier.format(text, { ...OPTIONS, parser: file.endsWith(".json") ? "json" : "typescript" }));
  }
  return formatted;
}
