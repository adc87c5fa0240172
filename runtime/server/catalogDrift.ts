import type { App } from "../app.ts";
import type { Catalog, CommandEntry } from "../catalog.ts";

/** The app's commands no longer match its catalog.json: codegen was not re-run. */
export class StaleCatalogError extends Error {}

/**
 * How the app's commands differ from what codegen recorded of them (their names, options and
 * the grant the app is defined with), one sentence each; empty when they agree. A difference
 * means a listing or a read would serve yesterday's app: a newly granted command missing, a
 * revoked one still listed.
 */
export function catalogDrift(app: App, catalog: Catalog): string[] {
  const recorded = new Map(catalog.commands.map((entry) => [entry.name, entry]));
  const drift: string[] = [];
  for (const name of recorded.keys())
    if (!app.commands.has(name))
      drift.push(`catalog.json lists ${name}, which the app no longer has`);
  for (const [name, command] of app.commands) {
    const entry = recorded.get(name);
    if (!entry) {
      drift.push(`${name} is not in catalog.json`);
      continue;
    }
    const now = {
      live: command.options.live === true,
      confirm: command.options.confirm === true,
      granted: app.definedGrant.has(name),
    };
    for (const flag of ["live", "confirm", "granted"] as const) {
      if (now[flag] !== entry[flag])
        drift.push(
          `${name} is ${now[flag] ? "" : "not "}${flag} in the app, but catalog.json has it ${entry[flag] ? "" : "not "}${flag}`,
        );
    }
    drift.push(...optionDrift(name, command.options, entry));
  }
  return drift;
}

function optionDrift(
  name: string,
  options: { title?: string; mimeType?: string },
  entry: CommandEntry,
): string[] {
  const drift: string[] = [];
  if (options.title !== entry.title)
    drift.push(
      `${name}'s title is ${JSON.stringify(options.title)} in the app, ${JSON.stringify(entry.title)} in catalog.json`,
    );
  const mimeType = options.mimeType ?? "application/json";
  if (mimeType !== entry.mimeType)
    drift.push(`${name}'s mimeType is ${mimeType} in the app, ${entry.mimeType} in catalog.json`);
  return drift;
}
