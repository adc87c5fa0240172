import { InputError } from "./inputError.ts";
import { livecmdManifest } from "./livecmdPackage.ts";
import { shellLine } from "./shellLine.ts";

/**
 * Packages of the project's own that a livecmd command loads when it needs them: tsx, to load an
 * app module written in TypeScript. livecmd does not declare it (a production server serves the
 * compiled app), so it is found from the project, as a strict layout (pnpm) lets only the
 * project see it. The range is what this livecmd works with; `livecmd init` installs it.
 */
export const DEV_PACKAGES = {
  tsx: "^4.0.0",
} as const;

export type DevPackage = keyof typeof DEV_PACKAGES;

/**
 * Optional peers of livecmd that a command loads on demand (`livecmd doctor` drives the SDK
 * client); their ranges are livecmd's own peerDependencies.
 */
export type PeerPackage = "@modelcontextprotocol/client";

type OnDemandPackage = DevPackage | PeerPackage;

/**
 * Runs `load` (an import of something that needs `name`), and turns `name` missing into the
 * command that installs it, at the range this livecmd works with.
 */
export async function withPackage<T>(
  purpose: string,
  name: OnDemandPackage,
  load: () => Promise<T>,
  otherwise = "",
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (missingPackage(error) !== name) throw error;
    throw new InputError(
      `${purpose} needs ${name}, which is not installed: ${shellLine(["npm", "install", "--save-dev", `${name}@${rangeOf(name)}`])}${otherwise}`,
    );
  }
}

function rangeOf(name: OnDemandPackage): string {
  if (name in DEV_PACKAGES) return DEV_PACKAGES[name as DevPackage];
  const range = livecmdManifest().peerDependencies[name];
  if (range === undefined)
    throw new Error(`livecmd's package.json has no peer dependency on ${name}`);
  return range;
}

/** The package a failed import could not find, if that is why it failed. */
export function missingPackage(error: unknown): string | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" || typeof message !== "string") return undefined;
  return /Cannot find package '([^']+)'/.exec(message)?.[1];
}
