import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Writes `lines` (the `--tokens` file format: `<token> [scopes] # name` per line) to a new temporary folder's tokens.txt and returns its path. */
export function tokensFile(lines: string | Buffer): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "livecmd-tokens-")), "tokens.txt");
  writeFileSync(file, lines);
  return file;
}
