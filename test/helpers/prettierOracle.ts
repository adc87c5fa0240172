import * as prettier from "prettier";
import prettierConfig from "../../.prettierrc.json" with { type: "json" };

/**
 * The layout the generator's output is held to: prettier with every option spelled out in the
 * repository's .prettierrc.json, the style of livecmd's own code too. The render stage prints
 * this layout itself; prettier only checks it.
 */
export const PRETTIER_OPTIONS: prettier.Options = prettierConfig as prettier.Options;

export function prettierFormat(file: string, text: string): Promise<string> {
  return prettier.format(text, {
    ...PRETTIER_OPTIONS,
    parser: file.endsWith(".json") ? "json" : file.endsWith(".md") ? "markdown" : "typescript",
  });
}
