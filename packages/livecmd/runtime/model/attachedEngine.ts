import type { App } from "./app.ts";
import type { AppEngine } from "./appEngine.ts";

/**
 * Where an App keeps its engine: a registered symbol rather than a module's WeakMap, because the
 * app's module and the CLI may load two copies of livecmd, and either must reach the other's.
 */
const ENGINE = Symbol.for("livecmd.appEngine");

/** Gives `app` its engine, as a property its type does not declare. */
export function attachEngine(app: App, engine: AppEngine): void {
  Object.defineProperty(app, ENGINE, { value: engine });
}

/** The engine of an app made by `defineApp`, which the server, the CLI and tests drive. */
export function engineOf(app: App): AppEngine {
  const engine = (app as unknown as Partial<Record<symbol, AppEngine>>)[ENGINE];
  if (!engine) throw new Error("livecmd: not an app; make it with defineApp({ ... })");
  return engine;
}
