/**
 * The project's livecmd settings, for the CLI: `livecmd.config.json`, `livecmd.config.ts`
 * (`export default defineConfig({ ... })`) or a `"livecmd"` key in package.json. Paths are
 * relative to the project root, the folder the CLI runs in.
 */
export interface LivecmdConfig {
  /** The app module, the TypeScript file that calls `defineApp`; `src/app.ts` or `app.ts` when absent. */
  app?: string;
  /** Where `livecmd codegen` writes; the `generated` folder beside the app module when absent. */
  out?: string;
  /** The tsconfig codegen reads the app with; the nearest tsconfig.json above the app when absent. */
  tsconfig?: string;
}

/** Types a `livecmd.config.ts`; returns `config` as it is. */
export function defineConfig(config: LivecmdConfig): LivecmdConfig {
  return config;
}
