import type { AppEngine } from "../../model/appEngine.ts";
import {
  annotationsOf,
  type Catalog,
  type CommandEntry,
  type ToolEntry,
} from "../../model/catalog.ts";
import { needsConfirmation, type CommandOptions } from "../../model/command.ts";
import { watchToolEntry } from "../../model/watchTool.ts";

/** The app's commands no longer match its catalog.json: codegen was not re-run. */
export class StaleCatalogError extends Error {}

/**
 * How the app's commands differ from what codegen recorded of them (their names, options and
 * the grant the app is defined with), one sentence each; empty when they agree. A difference
 * means a listing or a read would serve yesterday's app: a newly granted command missing, a
 * revoked one still listed.
 */
export function catalogDrift(engine: AppEngine, catalog: Catalog): string[] {
  const recorded = new Map(catalog.commands.map((entry) => [entry.name, entry]));
  const drift: string[] = [];
  for (const name of recorded.keys())
    if (!engine.commands.has(name))
      drift.push(`catalog.json lists ${name}, which the app no longer has`);
  for (const [name, command] of engine.commands) {
    const entry = recorded.get(name);
    if (!entry) {
      drift.push(`${name} is not in catalog.json`);
      continue;
    }
    const now = {
      live: command.options.live === true,
      confirm: needsConfirmation(command.options),
      granted: engine.definedGrant.has(name),
    };
    for (const flag of ["live", "confirm", "granted"] as const) {
      if (now[flag] !== entry[flag])
        drift.push(
          `${name} is ${now[flag] ? "" : "not "}${flag} in the app, but catalog.json has it ${entry[flag] ? "" : "not "}${flag}`,
        );
    }
    drift.push(...optionDrift(name, command.options, entry));
  }
  const watch = watchToolDrift(engine.watchTool, catalog.watchTool ?? null);
  if (watch) drift.push(watch);
  return drift;
}

/** How the watch tool the app serves differs from the one catalog.json lists, if it does. */
function watchToolDrift(served: string | undefined, listed: ToolEntry | null): string | undefined {
  if (served === undefined)
    return listed
      ? `catalog.json lists the watch tool ${listed.name}, which the app no longer serves (agent.watchTool: false)`
      : undefined;
  if (!listed) return `the app serves the watch tool ${served}, which catalog.json does not list`;
  if (listed.name !== served)
    return `the watch tool is named ${served} in the app, ${listed.name} in catalog.json`;
  return JSON.stringify(listed) === JSON.stringify(watchToolEntry(served))
    ? undefined
    : `catalog.json lists the watch tool ${served} as another version of livecmd described it`;
}

function optionDrift(name: string, options: CommandOptions, entry: CommandEntry): string[] {
  const drift: string[] = [];
  // What the app states now, derived the way codegen derives it, against what codegen recorded.
  const annotations = JSON.stringify(
    annotationsOf({
      live: options.live === true,
      confirm: needsConfirmation(options),
      ...(options.title !== undefined && { title: options.title }),
      ...(options.annotations && { stated: options.annotations }),
    }),
  );
  if (entry.annotations === undefined)
    drift.push(`${name} has no annotations in catalog.json (written before livecmd derived them)`);
  else if (annotations !== JSON.stringify(entry.annotations))
    drift.push(
      `${name}'s annotations are ${annotations} in the app, ${JSON.stringify(entry.annotations)} in catalog.json`,
    );
  if (options.title !== entry.title)
    drift.push(
      `${name}'s title is ${JSON.stringify(options.title)} in the app, ${JSON.stringify(entry.title)} in catalog.json`,
    );
  const mimeType = options.mimeType ?? "application/json";
  if (mimeType !== entry.mimeType)
    drift.push(`${name}'s mimeType is ${mimeType} in the app, ${entry.mimeType} in catalog.json`);
  // Which view, not the page's text: the server reads no files, catalog.json holds the page.
  const view = !options.view
    ? "no view"
    : options.view === true
      ? "livecmd's view"
      : "its own page";
  const recordedView = !entry.view
    ? "no view"
    : entry.view.html === undefined
      ? "livecmd's view"
      : "its own page";
  if (view !== recordedView)
    drift.push(`${name} has ${view} in the app, ${recordedView} in catalog.json`);
  return drift;
}
