import { createHash } from "node:crypto";
import type { CommandEntry } from "../model/catalog.ts";
import { VIEW_CONFIG_ID, type ViewConfig } from "../model/viewResource.ts";
import { DEFAULT_VIEW_STYLE } from "./defaultViewStyle.ts";

/**
 * The HTML of `entry`'s view: self-contained (the view runtime `script` inline, no remote
 * anything), under a Content-Security-Policy that runs exactly its own inline scripts and styles
 * (by digest) and allows nothing else: no network, no frames, no forms, no plugins. The app's own
 * page (`view: { html }`) gets the same policy over its inline scripts and styles, and the
 * runtime before them, so they can call `livecmd.onResult`.
 */
export function viewPage(entry: CommandEntry, watchTool: string | null, script: string): string {
  const config: ViewConfig = {
    command: entry.name,
    title: entry.title ?? entry.name,
    watchTool,
    resultSchema: entry.resultSchema,
    own: entry.view?.html !== undefined,
  };
  const runtime = [
    `<script type="application/json" id="${VIEW_CONFIG_ID}">${jsonInScript(config)}</script>`,
    `<script>${codeInScript(script)}</script>`,
  ].join("\n");
  const own = entry.view?.html;
  if (own !== undefined) return withPolicy(beforeFirstScript(own, runtime));
  return withPolicy(
    [
      "<!doctype html>",
      '<html lang="en">',
      "<head>",
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${textInHtml(config.title)}</title>`,
      `<style>${DEFAULT_VIEW_STYLE}</style>`,
      runtime,
      "</head>",
      "<body>",
      '<main id="livecmd-view-root" aria-live="polite"></main>',
      "</body>",
      "</html>",
      "",
    ].join("\n"),
  );
}

/** The policy of a page: `default-src 'none'`, and its own inline scripts and styles by digest. */
export function contentSecurityPolicy(html: string): string {
  const scripts = inlineDigests(html, "script");
  const styles = inlineDigests(html, "style");
  return [
    "default-src 'none'",
    `script-src ${scripts.join(" ") || "'none'"}`,
    `style-src ${styles.join(" ") || "'none'"}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/**
 * The page with its policy early in its `<head>`, before any script or style: after its
 * `<meta charset>` (which must come first), else at the start of its `<head>`.
 */
function withPolicy(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(html)}">`;
  const after = /<meta\s+charset\b[^>]*>/i.exec(html) ?? /<head\b[^>]*>/i.exec(html);
  if (!after) return `${meta}\n${html}`;
  const at = after.index + after[0].length;
  return `${html.slice(0, at)}\n${meta}${html.slice(at)}`;
}

/** The app's page with the runtime before its first script, so `livecmd` is there for them all. */
function beforeFirstScript(html: string, runtime: string): string {
  const first = /<script\b/i.exec(html) ?? /<\/head\s*>/i.exec(html) ?? /<\/body\s*>/i.exec(html);
  const at = first ? first.index : html.length;
  return `${html.slice(0, at)}${runtime}\n${html.slice(at)}`;
}

/** `'sha256-...'` of each inline `<script>` or `<style>` body: what CSP matches them by. */
function inlineDigests(html: string, tag: "script" | "style"): string[] {
  const element = new RegExp(`<${tag}\\b([^>]*)>([\\s\\S]*?)</${tag}\\s*>`, "gi");
  const digests = new Set<string>();
  for (const [, attributes, body] of html.matchAll(element)) {
    if (tag === "script" && /\bsrc\s*=/i.test(attributes!)) continue;
    digests.add(`'sha256-${createHash("sha256").update(body!).digest("base64")}'`);
  }
  return [...digests];
}

/** JSON that cannot end its `<script>` element or open a comment in it. */
function jsonInScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** Code that cannot end its `<script>` element: `</script` and `<!--` only occur in its strings. */
function codeInScript(code: string): string {
  return code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

function textInHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
