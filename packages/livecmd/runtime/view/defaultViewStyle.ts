/**
 * The default view's stylesheet: the host's colours and fonts where it shares them (the MCP Apps
 * style variables), the system's otherwise, light or dark as the person's setting is.
 */
export const DEFAULT_VIEW_STYLE = [
  ":root{color-scheme:light dark;font:14px/1.45 var(--font-sans,system-ui,sans-serif);color:var(--color-text-primary,CanvasText);background:var(--color-background-primary,Canvas)}",
  "body{margin:0;padding:12px 16px}",
  "header{display:flex;gap:12px;align-items:baseline;justify-content:space-between;margin-bottom:8px}",
  "h1{font-size:15px;margin:0}",
  ".status{font-size:12px;opacity:.7}",
  ".status.live::before{content:'';display:inline-block;width:7px;height:7px;border-radius:50%;background:#1a7f37;margin-right:6px}",
  ".refusal{border-left:3px solid #cf222e;padding:4px 10px;margin:0}",
  "dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}",
  "dt{font-weight:600}",
  "dd{margin:0;overflow-wrap:anywhere}",
  "dd dl{font-size:13px}",
  "table{border-collapse:collapse;width:100%}",
  "th,td{text-align:left;padding:4px 8px;border-bottom:1px solid color-mix(in srgb,currentColor 20%,transparent)}",
  "td.number,th.number{text-align:right;font-variant-numeric:tabular-nums}",
  "ul.list{margin:0;padding-left:18px}",
  ".none{opacity:.6}",
].join("\n");
