/**
 * better-sqlite3's error when it has no native module, told as why and what to do. Its install
 * script fetches or builds the module; npm 12 and pnpm 10 skip the install scripts of the
 * dependencies package.json does not approve, and approving one later does not run it on the
 * next install (npm says "up to date"): it takes a rebuild.
 */
export function missingBinaryProblem(error: unknown): string | undefined {
  if (!(error instanceof Error) || !error.message.startsWith("Could not locate the bindings file"))
    return undefined;
  const tried = /(\S*[\\/]better-sqlite3)[\\/]build[\\/]better_sqlite3\.node/.exec(error.message);
  if (!tried) return undefined;
  return `better-sqlite3 (in ${tried[1]}) has no native module: its install script, which fetches or builds it, did not run (npm 12 and pnpm 10 skip the install scripts of dependencies that package.json does not approve). Approve it in package.json, "allowScripts": { "better-sqlite3": true } (pnpm: "pnpm": { "onlyBuiltDependencies": ["better-sqlite3"] }), then build it: npm rebuild better-sqlite3`;
}
