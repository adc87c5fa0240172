import { loadProjectConfig, resolveAppModule, resolveOutFolder } from "livecmd/cli";

export interface PathFlags {
  app?: string | undefined;
  out?: string | undefined;
  tsconfig?: string | undefined;
}

export interface AppPaths {
  app: string;
  out: string;
  tsconfig: string | undefined;
  /** `npx livecmd codegen` with the flags it took to find these paths, for messages. */
  rerun: string;
}

/** The app module, output folder and tsconfig codegen and inspect work on: flags, then config, then defaults. */
export async function appPaths(flags: PathFlags, cwd: string): Promise<AppPaths> {
  const project = await loadProjectConfig(cwd);
  const app = resolveAppModule(flags.app, project, cwd);
  const tsconfig = flags.tsconfig ?? project.config.tsconfig;
  const given = (["app", "out", "tsconfig"] as const)
    .filter((flag) => flags[flag] !== undefined)
    .map((flag) => ` --${flag} ${flags[flag]}`);
  return {
    app,
    out: resolveOutFolder(flags.out, project, app),
    tsconfig,
    rerun: `npx livecmd codegen${given.join("")}`,
  };
}
