import type { CallToolResult } from "@modelcontextprotocol/server";
import { FAILED, type LastResult } from "../../live/lastResult.ts";
import { versionOf } from "../../live/resultVersion.ts";
import { MAX_WATCH_WAIT_MS, type WatchAnswer, type WatchChange } from "../../model/watchTool.ts";
import { invalidToolArguments, unwatchableUris, watchLimitReached } from "../errors/toolErrors.ts";
import { limitReached } from "../errors/limitErrors.ts";
import { tokenEnded } from "../errors/protocolErrors.ts";
import { progressReporter, type ProgressReporter } from "./progressReporter.ts";
import type { ToolCall } from "./callTool.ts";
import type { ServedApp } from "../served/servedApp.ts";

/** The watch tool's arguments, once they passed its `inputSchema`. */
interface WatchArguments {
  resources: { uri: string; version?: string }[];
  timeoutMs?: number;
}

/**
 * How often a waiting watch tells a client that asked for progress it is still there: every 5 s,
 * and at least four times a wait, so that a host resetting its timeout on progress keeps it open.
 */
const PROGRESS_EVERY_MS = 5000;

/**
 * The watch tool (`agent.watchTool`): watches the URIs as a listen does (the live room's limits,
 * the registry's groups and re-runs), answers at once when a result is already not the version
 * the agent gave, and otherwise waits for the first change that leaves one so, for the wait it
 * asked (at most `MAX_WATCH_WAIT_MS`), for its cancellation, or for the server to drain. A call
 * whose token is revoked or expires meanwhile ends at once with an error, and no data.
 */
export async function watchResources(served: ServedApp, call: ToolCall): Promise<CallToolResult> {
  const { name, values = {}, auth, ctx } = call;
  const errors = served.validator.validate(served.catalog.watchTool!.inputSchema, values);
  if (errors.length > 0) return invalidToolArguments(name, errors);
  const { resources, timeoutMs = MAX_WATCH_WAIT_MS } = values as unknown as WatchArguments;
  // A URI given twice is watched once, with the version given first.
  const seen = new Map<string, string | undefined>();
  for (const { uri, version } of resources) if (!seen.has(uri)) seen.set(uri, version);
  const waiting = new Wake();
  const watch = await served.room.openWatch([...seen.keys()], auth, () => waiting.wake());
  if ("unreadable" in watch) return unwatchableUris(name, watch.unreadable);
  if ("refused" in watch) return watchLimitReached(name, limitReached(watch.refused));
  const progress = progressReporter(ctx);
  const revoked = new AbortController();
  const release = call.held.hold(auth, () => revoked.abort());
  try {
    const uris = [...seen.keys()];
    await Promise.all(uris.map((uri) => watch.settledResultOf(uri)));
    const current = () => uris.map((uri) => ({ uri, result: watch.resultOf(uri) }));
    const ends = AbortSignal.any([ctx.mcpReq.signal, watch.answerNow, revoked.signal]);
    const deadline = performance.now() + timeoutMs;
    const ticking = progress && tickProgress(progress, timeoutMs, uris.length);
    try {
      while (!current().some(({ uri, result }) => isNews(result, seen.get(uri)))) {
        const left = deadline - performance.now();
        if (left <= 0 || ends.aborted) break;
        await waiting.next(left, ends);
      }
    } finally {
      clearInterval(ticking);
    }
    if (revoked.signal.aborted) throw tokenEnded();
    return answer(current(), seen);
  } finally {
    release();
    watch.close();
    progress?.finish();
  }
}

/** Whether `result` is not the version the agent gave (no version: anything is news). */
function isNews(result: LastResult | undefined, version: string | undefined): boolean {
  return result !== undefined && versionOf(result.text) !== version;
}

function answer(
  current: { uri: string; result: LastResult | undefined }[],
  given: ReadonlyMap<string, string | undefined>,
): CallToolResult {
  const watched = current.flatMap(({ uri, result }) => (result ? [{ uri, result }] : []));
  const changed = watched
    .filter(({ uri, result }) => isNews(result, given.get(uri)))
    .map(({ uri, result }) => changeOf(uri, result));
  const structured: WatchAnswer & Record<string, unknown> = {
    status: changed.length > 0 ? "changed" : "unchanged",
    changed,
    resources: watched.map(({ uri, result }) => ({ uri, version: versionOf(result.text) })),
  };
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

function changeOf(uri: string, result: LastResult): WatchChange {
  const version = versionOf(result.text);
  const lastModified =
    result.changedAt === undefined
      ? {}
      : { lastModified: new Date(result.changedAt).toISOString() };
  return result.text === FAILED
    ? { uri, version, error: result.failure ?? "the read fails", ...lastModified }
    : { uri, version, value: JSON.parse(result.text), ...lastModified };
}

/** `notifications/progress` while a watch waits: how long it has waited, of how long. */
function tickProgress(progress: ProgressReporter, timeoutMs: number, uris: number): NodeJS.Timeout {
  const started = performance.now();
  const what = uris === 1 ? "1 URI" : `${uris} URIs`;
  const tell = () => {
    const waited = Math.min(timeoutMs, Math.round(performance.now() - started));
    progress.report(
      waited,
      timeoutMs,
      `no change yet in ${what}; waited ${waited} of ${timeoutMs} ms`,
    );
  };
  tell();
  return setInterval(tell, Math.max(100, Math.min(PROGRESS_EVERY_MS, timeoutMs / 4)));
}

/** A wait that a change ends early: `wake()` ends the wait in progress, or the next one at once. */
class Wake {
  #woken = false;
  #resolve: (() => void) | undefined;

  wake(): void {
    this.#woken = true;
    this.#resolve?.();
  }

  /** Resolves on a wake since the last wait, after `ms`, or when `ends` fires. */
  async next(ms: number, ends: AbortSignal): Promise<void> {
    if (this.#woken) return void (this.#woken = false);
    let timer: NodeJS.Timeout | undefined;
    const onEnd = () => this.#resolve?.();
    await new Promise<void>((resolve) => {
      this.#resolve = resolve;
      timer = setTimeout(resolve, ms);
      ends.addEventListener("abort", onEnd, { once: true });
    });
    clearTimeout(timer);
    ends.removeEventListener("abort", onEnd);
    this.#resolve = undefined;
    this.#woken = false;
  }
}
