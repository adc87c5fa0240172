/**
 * livecmd/cli: what the dev tool's commands (livecmd-kit: codegen, inspect, init) share with
 * livecmd's own CLI, whose `livecmd` binary runs them: one-line input errors, the project's
 * settings, loading its app module. Not for apps; it may change in any release.
 */
export { DEV_PACKAGES } from "./devPackages.ts";
export { plural } from "./doctor/wording.ts";
export { shellLine } from "./shellLine.ts";
export { InputError } from "./inputError.ts";
export { KIT } from "./kitCommands.ts";
export { livecmdManifest } from "./livecmdPackage.ts";
export { loadApp } from "./loadApp.ts";
export { addCommand, packageManagerOf, type PackageManager } from "./packageManager.ts";
export {
  DEFAULT_APP_MODULES,
  loadProjectConfig,
  resolveAppModule,
  resolveOutFolder,
} from "./projectConfig.ts";
