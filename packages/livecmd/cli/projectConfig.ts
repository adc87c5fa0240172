import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { LivecmdConfig } from "livecmd";
import { importModule } from "./importModule.ts";
import { InputError } from "./inputError.ts";

/** The project's config and where it came from ("livecmd.config.json", "package.json", ...). */
export interface ProjectConfig {
  config: LivecmdConfig;
  source: string | undefined;
}

/** Where an app module is looked for when neither a flag nor the config names one, in order. */
export const DEFAULT_APP_MODULES = ["src/app.ts", "app.ts"] as const;

const KEYS: readonly (keyof LivecmdConfig)[] = ["app", "out", "tsconfig"];

/** Reads the config of the project in `cwd`; none is `{}`. Two config sources are an error. */
export async function loadProjectConfig(cwd: string): Promise<ProjectConfig> {
  const found = await Promise.all([
    fromJsonFile(cwd),
    fromTypeScriptFile(cwd),
    fromPackageJson(cwd),
  ]);
  const present = found.filter((entry) => entry !== undefined);
  if (present.length > 1) {
    throw new InputError(
      `livecmd settings are in both ${present[0]!.source} and ${present[1]!.source}; keep them in one place`,
    );
  }
  const chosen = present[0];
  return chosen
    ? { config: checked(chosen.value, chosen.source), source: chosen.source }
    : { config: {}, source: undefined };
}

/** The app module: the flag, else the config, else the first of `DEFAULT_APP_MODULES` that exists. */
export function resolveAppModule(
  flag: string | undefined,
  { config, source }: ProjectConfig,
  cwd: string,
): string {
  if (flag !== undefined) return flag;
  if (config.app !== undefined) {
    if (!existsSync(path.resolve(cwd, config.app)))
      throw new InputError(`${source} names the app module ${config.app}, which does not exist`);
    return config.app;
  }
  const found = defaultAppModule(cwd);
  if (found) return found;
  throw new InputError(
    `no app module: tried ${DEFAULT_APP_MODULES.join(" and ")} in ${cwd}; pass --app <file>, set "livecmd": { "app": "..." } in package.json, or run \`npx livecmd init\``,
  );
}

/** The app module codegen reads when no flag names one: the config's, else a default that exists. */
export function codegenAppModule({ config }: ProjectConfig, cwd: string): string | undefined {
  return config.app ?? defaultAppModule(cwd);
}

function defaultAppModule(cwd: string): string | undefined {
  return DEFAULT_APP_MODULES.find((candidate) => existsSync(path.resolve(cwd, candidate)));
}

/** The output folder: the flag, else the config, else `generated` beside the app module. */
export function resolveOutFolder(
  flag: string | undefined,
  { config }: ProjectConfig,
  app: string,
): string {
  return (
    flag ??
    config.out ??
    path.posix.join(path.posix.dirname(app.split(path.sep).join("/")), "generated")
  );
}

async function fromJsonFile(cwd: string) {
  const file = path.join(cwd, "livecmd.config.json");
  if (!existsSync(file)) return undefined;
  return { source: "livecmd.config.json", value: parseJson(file, "livecmd.config.json") };
}

async function fromTypeScriptFile(cwd: string) {
  if (!existsSync(path.join(cwd, "livecmd.config.ts"))) return undefined;
  const module = await importModule("livecmd.config.ts", cwd);
  return { source: "livecmd.config.ts", value: module.default };
}

async function fromPackageJson(cwd: string) {
  const file = path.join(cwd, "package.json");
  if (!existsSync(file)) return undefined;
  const manifest = parseJson(file, "package.json") as { livecmd?: unknown };
  return manifest.livecmd === undefined
    ? undefined
    : { source: 'the "livecmd" key of package.json', value: manifest.livecmd };
}

function parseJson(file: string, name: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InputError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
}

function checked(value: unknown, source: string): LivecmdConfig {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(
      `${source} must be an object like { "app": "src/app.ts", "out": "src/generated" }`,
    );
  }
  for (const [key, setting] of Object.entries(value)) {
    if (!(KEYS as readonly string[]).includes(key))
      throw new InputError(
        `${source} has an unknown setting "${key}"; the settings are ${KEYS.join(", ")}`,
      );
    if (typeof setting !== "string" || setting === "")
      throw new InputError(
        `${source}: "${key}" must be a non-empty path, got ${JSON.stringify(setting)}`,
      );
  }
  return value as LivecmdConfig;
}
