// livecmd/view: what an app's own view page (`command({ view: { html } })`) renders with. The
// page's livecmd runtime (inline, before the app's scripts) keeps the result current through the
// watch tool and hands each version to `onResult`. Browser code: what it re-exports (the keys and
// shapes livecmd's own view runtime reads) imports nothing.

export { VERSION_META_KEY } from "../model/resultMeta.ts";
export { VIEW_CONFIG_ID, VIEW_URI_META_KEY, type ViewConfig } from "../model/viewResource.ts";
export type { WatchAnswer } from "../model/watchTool.ts";

/** What came with a result besides its value. */
export interface ResultUpdate {
  /** The URI the tool call read, which the view watches; undefined when the call named none. */
  readonly uri: string | undefined;
  /** When livecmd last saw the result change (ISO 8601), where it knows; else when the view got it. */
  readonly lastModified: string;
  /** Whether the view is watching it (false: the host or the server cannot keep it current). */
  readonly live: boolean;
}

/** The runtime a view page holds as `globalThis.livecmd`. */
export interface LivecmdView {
  /** Calls `render` with the result now (if the view has one) and with every new version. */
  onResult(render: (result: unknown, update: ResultUpdate) => void): void;
  /** Calls `show` when the server refuses the view its URI (or the call failed), with why. */
  onRefusal(show: (message: string) => void): void;
}

/**
 * Renders each version of the command's result, typed as the command returns it
 * (`onResult<CustomerDetail>((customer) => ...)`): now, if the view has one, and on every change.
 */
export function onResult<R>(render: (result: R, update: ResultUpdate) => void): void {
  viewRuntime().onResult(render as (result: unknown, update: ResultUpdate) => void);
}

/** Shows why the server refused the view its URI (the principal may not read it, say). */
export function onRefusal(show: (message: string) => void): void {
  viewRuntime().onRefusal(show);
}

function viewRuntime(): LivecmdView {
  const runtime = (globalThis as { livecmd?: LivecmdView }).livecmd;
  if (!runtime)
    throw new Error(
      "livecmd/view runs in a livecmd view page: name the page in command({ live: true, view: { html } }) and load this script from it",
    );
  return runtime;
}
