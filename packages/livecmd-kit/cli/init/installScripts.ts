import type { PackageManager } from "livecmd/cli";

/**
 * Whether the install scripts of what the starter installs should run: better-sqlite3's builds
 * or fetches its native module, so it runs; esbuild's (tsx's compiler) only checks the binary the
 * package manager already installs as an optional dependency, so it is denied. Left unrecorded,
 * npm 11 warns about each ("install scripts not yet covered by allowScripts") and pnpm 10 skips
 * both, better-sqlite3's included.
 */
const DECISIONS: Readonly<Record<string, { script: boolean; comesWith: string }>> = {
  "better-sqlite3": { script: true, comesWith: "better-sqlite3" },
  esbuild: { script: false, comesWith: "tsx" },
};

export interface ScriptSettings {
  allowScripts?: Record<string, boolean>;
  pnpm?: { onlyBuiltDependencies?: string[]; ignoredBuiltDependencies?: string[] };
}

/**
 * Records in `manifest`, as `manager` reads it (npm: `allowScripts`; pnpm: `pnpm.
 * onlyBuiltDependencies` and `ignoredBuiltDependencies`), the decision for each package with an
 * install script that comes with one of `installing`, unless the project has made its own.
 */
export function recordInstallScripts(
  manifest: ScriptSettings,
  manager: PackageManager,
  installing: readonly string[],
): void {
  const decided = Object.entries(DECISIONS).filter(([, { comesWith }]) =>
    installing.includes(comesWith),
  );
  for (const [name, { script }] of decided) {
    if (manager === "npm") {
      if (manifest.allowScripts?.[name] === undefined)
        manifest.allowScripts = { ...manifest.allowScripts, [name]: script };
      continue;
    }
    const pnpm = (manifest.pnpm ??= {});
    if (pnpm.onlyBuiltDependencies?.includes(name) || pnpm.ignoredBuiltDependencies?.includes(name))
      continue;
    const list = script ? "onlyBuiltDependencies" : "ignoredBuiltDependencies";
    pnpm[list] = [...(pnpm[list] ?? []), name];
  }
}
