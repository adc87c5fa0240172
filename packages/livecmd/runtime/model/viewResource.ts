// No imports: the browser-safe view runtime and the generator read these too.

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`): the MIME type of an app view's HTML,
 * as `@modelcontextprotocol/ext-apps` names it (`RESOURCE_MIME_TYPE`; a test holds them equal).
 */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/** The extension a client declares in its capabilities when it renders views (`EXTENSION_ID`). */
export const VIEW_EXTENSION_ID = "io.modelcontextprotocol/ui";

/**
 * Whether a client with `capabilities` renders views: it declared the MCP Apps extension, and,
 * when it lists the MIME types it renders, this one among them. Views are listed only to such a
 * client; a host that never declared it would show an agent a page it cannot use.
 */
export function rendersViews(
  capabilities: { extensions?: Record<string, unknown> } | undefined,
): boolean {
  const declared = capabilities?.extensions?.[VIEW_EXTENSION_ID];
  if (typeof declared !== "object" || declared === null) return false;
  const { mimeTypes } = declared as { mimeTypes?: unknown };
  return !Array.isArray(mimeTypes) || mimeTypes.includes(VIEW_MIME_TYPE);
}

/** Where a tool's call result says which URI it read, for its view to watch (`_meta`). */
export const VIEW_URI_META_KEY = "io.github.livecmd/uri";

/** A command's live view, as catalog.json holds it (`command({ view })`). */
export interface ViewEntry {
  /** `ui://app/customers_show`: the view's resource, linked from the tool (`_meta.ui.resourceUri`). */
  uri: string;
  /** The app's own HTML (`view: { html: "./file.html" }`), as written; absent: the default view. */
  html?: string;
}

/** Whether a `resources/list` entry is a command's view rather than a command's own resource. */
export function isViewListing(entry: { mimeType: string }): boolean {
  return entry.mimeType === VIEW_MIME_TYPE;
}

/** The `ui://` URI of `command`'s view in app `scheme`. */
export function viewUri(scheme: string, command: string): string {
  return `ui://${scheme}/${command}`;
}

/**
 * What the view resource tells a host about itself (`_meta.ui`, on its listing and its read):
 * no network, resource or frame origin at all (the extension's secure default, stated), and a
 * border, since the view is a card of data in the conversation.
 */
export const VIEW_RESOURCE_META = {
  ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true },
} as const;

/** What a view's page tells its runtime (`<script type="application/json" id="livecmd-view">`). */
export interface ViewConfig {
  /** The command whose result it shows. */
  command: string;
  /** The title it shows above the result: the command's title, else its name. */
  title: string;
  /** The watch tool it keeps current through; null when the app serves none. */
  watchTool: string | null;
  /** The result's JSON Schema, which the default view draws by. */
  resultSchema: { [keyword: string]: unknown };
  /** The app's own page renders the result itself (`livecmd.onResult`): no default view. */
  own: boolean;
}

/** The id of the element holding a page's `ViewConfig`. */
export const VIEW_CONFIG_ID = "livecmd-view";
