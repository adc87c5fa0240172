// The runtime of every livecmd view page, bundled with the ext-apps app SDK into one inline
// script (the package's build): it joins the host over the App bridge, follows the result
// (`LiveResult`), and shows it with livecmd's own view or hands it to the app's page
// (`globalThis.livecmd`, typed by `livecmd/view`).
import { App } from "@modelcontextprotocol/ext-apps";
import { VIEW_CONFIG_ID, type LivecmdView, type ResultUpdate, type ViewConfig } from "livecmd/view";
import { defaultView } from "./defaultView.ts";
import { LiveResult, type ViewState } from "./liveResult.ts";

const config = JSON.parse(document.getElementById(VIEW_CONFIG_ID)!.textContent!) as ViewConfig;
const shown = new Set<(state: ViewState) => void>();
let current: ViewState = { kind: "waiting" };

function publish(state: ViewState): void {
  current = state;
  for (const show of shown) show(state);
}

function follow(show: (state: ViewState) => void): void {
  shown.add(show);
  show(current);
}

const runtime: LivecmdView = {
  onResult(render) {
    follow((state) => {
      if (state.kind !== "result") return;
      const update: ResultUpdate = {
        uri: state.uri,
        lastModified: state.changedAt ?? state.receivedAt,
        live: state.live,
      };
      render(state.value, update);
    });
  },
  onRefusal(show) {
    follow((state) => state.kind === "refused" && show(state.message));
  },
};
(globalThis as { livecmd?: LivecmdView }).livecmd = runtime;

if (!config.own)
  document.addEventListener("DOMContentLoaded", () =>
    follow(defaultView(config, document.getElementById("livecmd-view-root")!)),
  );

const app = new App({ name: `livecmd view of ${config.command}`, version: "1" });
const live = new LiveResult(app, config.watchTool, publish);
app.ontoolresult = (result) => live.called(result);
app
  .connect()
  .catch((error: unknown) =>
    publish({ kind: "refused", message: `cannot reach the host: ${String(error)}` }),
  );
