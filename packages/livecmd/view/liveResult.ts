import type { App } from "@modelcontextprotocol/ext-apps";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { VERSION_META_KEY, VIEW_URI_META_KEY, type WatchAnswer } from "livecmd/view";

/** What the view shows: nothing yet, a result (watched or not), or why it has none. */
export type ViewState =
  | { readonly kind: "waiting" }
  | {
      readonly kind: "result";
      readonly value: unknown;
      readonly uri: string | undefined;
      /** When the server saw the result change (ISO 8601), where it knows. */
      readonly changedAt: string | undefined;
      /** When the view got it: what the result is "as of" where the change's time is unknown. */
      readonly receivedAt: string;
      readonly live: boolean;
    }
  | { readonly kind: "refused"; readonly message: string };

/** How long one watch call waits, well inside a host's request timeout (60 s by default). */
const WAIT_MS = 25_000;
/** After a failed watch call (the host or the network, not the server's refusal): wait, retry. */
const RETRY_MS = 2_000;

/**
 * Follows the command's result: the host's tool result first, then, through the watch tool, each
 * change of the URI that call read, for as long as the view is open. The server decides what the
 * view may watch exactly as for any other call of the principal's: a refusal ends the loop.
 */
export class LiveResult {
  readonly #app: App;
  readonly #watchTool: string | null;
  readonly #publish: (state: ViewState) => void;
  #watching = false;
  #shown: ViewState = { kind: "waiting" };

  constructor(app: App, watchTool: string | null, publish: (state: ViewState) => void) {
    this.#app = app;
    this.#watchTool = watchTool;
    this.#publish = (state) => publish((this.#shown = state));
  }

  /** The host's result of the tool call this view belongs to. */
  called(result: CallToolResult): void {
    if (result.isError) return this.#publish({ kind: "refused", message: textOf(result) });
    const uri = metaString(result, VIEW_URI_META_KEY);
    const text = result.content.find((part) => part.type === "text");
    const live = uri !== undefined && this.#watchTool !== null;
    this.#publish({
      kind: "result",
      value: JSON.parse(textOf(result)),
      uri,
      ...received(text?.annotations?.lastModified),
      live,
    });
    if (live && !this.#watching) {
      this.#watching = true;
      void this.#watch(uri, metaString(result, VERSION_META_KEY));
    }
  }

  #notLive(): void {
    if (this.#shown.kind === "result" && this.#shown.live)
      this.#publish({ ...this.#shown, live: false });
  }

  async #watch(uri: string, version: string | undefined): Promise<void> {
    for (;;) {
      let answer: CallToolResult;
      try {
        answer = await this.#app.callServerTool(
          {
            name: this.#watchTool!,
            arguments: {
              resources: [{ uri, ...(version !== undefined && { version }) }],
              timeoutMs: WAIT_MS,
            },
          },
          { timeout: WAIT_MS + 15_000 },
        );
      } catch {
        // The host did not relay the call (or it failed on the way): shown as not live, retried.
        this.#notLive();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      if (answer.isError) return this.#publish({ kind: "refused", message: textOf(answer) });
      const watched = (answer.structuredContent ?? JSON.parse(textOf(answer))) as WatchAnswer;
      for (const change of watched.changed) {
        if (change.uri !== uri) continue;
        this.#publish(
          change.error !== undefined
            ? { kind: "refused", message: change.error }
            : {
                kind: "result",
                value: change.value,
                uri,
                ...received(change.lastModified),
                live: true,
              },
        );
      }
      version = watched.resources.find((resource) => resource.uri === uri)?.version ?? version;
    }
  }
}

/** A result's times: when it changed, as the server told it (if it did), and now. */
function received(changedAt: string | undefined): {
  changedAt: string | undefined;
  receivedAt: string;
} {
  return { changedAt, receivedAt: new Date().toISOString() };
}

function textOf(result: CallToolResult): string {
  const text = result.content.find((part) => part.type === "text");
  return text?.type === "text" ? text.text : "";
}

function metaString(result: CallToolResult, key: string): string | undefined {
  const value = result._meta?.[key];
  return typeof value === "string" ? value : undefined;
}
