import { InputError } from "./inputError.ts";
import { livecmdManifest } from "./livecmdPackage.ts";

/**
 * Packages livecmd uses at development time only, which the project installs as its own dev
 * dependencies and livecmd finds in the project's node_modules. They are not declared as peers:
 * npm installs a dev dependency that is also an optional peer of a production one even with
 * `--omit=dev` (npm/cli#7772), which would put the generator in every production server.
 * The ranges are what this livecmd works with; `livecmd init` installs them.
 */
export const DEV_PACKAGES = {
  "ts-morph": "^28.0.0",
  prettier: "^3.0.0",
  diff: "^8.0.0 || ^9.0.0",
  tsx: "^4.0.0",
} as const;

export type DevPackage = keyof typeof DEV_PACKAGES;

/**
 * Optional peers of livecmd that a command loads on demand (`livecmd doctor` drives the SDK
 * client); their ranges are livecmd's own peerDependencies.
 */
export type PeerPackage = "@modelcontextprotocol/client";

type OnDemandPackage = DevPackage | PeerPackage;

/** What `livecmd codegen` and `livecmd inspect` load besides livecmd. */
export const GENERATOR_PACKAGES: readonly DevPackage[] = ["ts-morph", "prettier", "diff"];

/**
 * Runs `load` (an import of something that needs `packages`), and turns a missing one into the
 * command that installs every one of them that is missing, at the ranges this livecmd works
 * with, all named at once: one run of the command is enough.
 */
export async function withDevPackages<T>(
  purpose: string,
  packages: readonly OnDemandPackage[],
  load: () => Promise<T>,
  otherwise = "",
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === undefined || !(packages as readonly string[]).includes(missing)) throw error;
    const absent = packages.filter((name) => name === missing || !resolvable(name));
    const which = absent.length === 1 ? "which is" : "which are";
    throw new InputError(
      `${purpose} needs ${absent.join(", ")}, ${which} not installed: npm install --save-dev ${installSpecs(absent)}${otherwise}`,
    );
  }
}

/** `name@range` for each package, quoted for a shell where the range needs it. */
export function installSpecs(packages: readonly OnDemandPackage[]): string {
  return packages.map((name) => `${name}@${quoteForShell(rangeOf(name))}`).join(" ");
}

function rangeOf(name: OnDemandPackage): string {
  if (name in DEV_PACKAGES) return DEV_PACKAGES[name as DevPackage];
  const range = livecmdManifest().peerDependencies[name];
  if (range === undefined)
    throw new Error(`livecmd's package.json has no peer dependency on ${name}`);
  return range;
}

/** Whether `name` would be found from here, as livecmd's own imports find it. */
function resolvable(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** The package a failed import could not find, if that is why it failed. */
export function missingPackage(error: unknown): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" || typeof message !== "string") return undefined;
  return /Cannot find package '([^']+)'/.exec(message)?.[1];
}

function quoteForShell(range: string): string {
  return /^[\w.~^-]+$/.test(range) ? range : `"${range}"`;
}

/** A command as a shell line that runs it as given: each word a shell would split or read, quoted. */
export function shellLine(command: readonly string[]): string {
  return command.map((word) => (/^[\w.~^@/=:+,-]+$/.test(word) ? word : `'${word}'`)).join(" ");
}
