import type { ViewConfig } from "livecmd/view";
import type { ViewState } from "./liveResult.ts";
import { renderValue, utcText } from "./schemaView.ts";

/**
 * livecmd's own view of a command's result: its title, whether it is live and when it last
 * changed (or as of when), then the result drawn by its schema (`schemaView.ts`), or why there
 * is none.
 */
export function defaultView(config: ViewConfig, root: HTMLElement): (state: ViewState) => void {
  return (state) => {
    const header = document.createElement("header");
    const title = document.createElement("h1");
    title.textContent = config.title;
    const status = document.createElement("span");
    status.className = "status";
    header.append(title, status);
    if (state.kind === "waiting") {
      status.textContent = "waiting for the result";
      root.replaceChildren(header);
    } else if (state.kind === "refused") {
      status.textContent = "not shown";
      const refusal = document.createElement("p");
      refusal.className = "refusal";
      refusal.setAttribute("role", "alert");
      refusal.textContent = state.message;
      root.replaceChildren(header, refusal);
    } else {
      status.className = state.live ? "status live" : "status";
      // Where the server does not know when the result last changed (nothing changed since it
      // started), the view says when it got the result instead of passing that off as a change.
      const when = state.changedAt
        ? `last changed ${utcText(state.changedAt)}`
        : `as of ${utcText(state.receivedAt)}`;
      status.textContent = `${state.live ? "live" : "not kept current"} · ${when}`;
      const changed = document.createElement("time");
      changed.setAttribute("datetime", state.changedAt ?? state.receivedAt);
      status.append(changed);
      root.replaceChildren(
        header,
        renderValue(state.value, config.resultSchema, config.resultSchema),
      );
    }
  };
}
