import { existsSync } from "node:fs";
import path from "node:path";

/** The package managers init speaks: how each adds a dependency, and a dev one. */
const ADD = {
  npm: { save: ["npm", "install", "--save"], saveDev: ["npm", "install", "--save-dev"] },
  pnpm: { save: ["pnpm", "add"], saveDev: ["pnpm", "add", "--save-dev"] },
} as const;

export type PackageManager = keyof typeof ADD;

/**
 * The package manager of the project in `cwd`: the one that runs this command (its user agent,
 * `pnpm/10.0.0 npm/? node/v22...`, set by `pnpm exec` and `pnpm dlx`), else the one whose lock file
 * the project has; npm otherwise. Mixing two in one project breaks its node_modules.
 */
export function packageManagerOf(
  cwd: string,
  userAgent = process.env.npm_config_user_agent ?? "",
): PackageManager {
  if (userAgent.startsWith("pnpm/")) return "pnpm";
  if (userAgent.startsWith("npm/")) return "npm";
  return existsSync(path.join(cwd, "pnpm-lock.yaml")) ? "pnpm" : "npm";
}

/** The command that adds `specs` (`name@range`) to the project as dependencies, or dev ones. */
export function addCommand(
  manager: PackageManager,
  kind: "save" | "saveDev",
  specs: readonly string[],
): string[] {
  return [...ADD[manager][kind], ...specs];
}
