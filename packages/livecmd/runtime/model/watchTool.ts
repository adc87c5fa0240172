import type { ToolEntry } from "./catalog.ts";
import { VERSION_META_KEY } from "./resultMeta.ts";

/**
 * The watch tool's name when the app gives none (`agent.watchTool`): a verb and what it acts on,
 * in snake_case, as the tools hosts already know name themselves (FastMCP's `read_resource` and
 * `list_resources` for hosts without resource support; `wait_for_*` long polls); plural, since one
 * call watches many URIs.
 */
export const DEFAULT_WATCH_TOOL = "watch_resources";

/**
 * The longest one call waits for a change: below the ~30 s at which some hosts drop a tool call
 * over Streamable HTTP whatever their settings say (anthropics/claude-code#20335, #47076), and
 * well below the SDK clients' 60 s default request timeout, so the "unchanged" answer arrives
 * rather than a timeout. An agent that wants to wait longer calls again.
 */
export const MAX_WATCH_WAIT_MS = 25_000;

/** The watch tool's answer: its `structuredContent`, and its text content as JSON. */
export interface WatchAnswer {
  /** "changed": some result is not the version given; "unchanged": the wait ended with none. */
  status: "changed" | "unchanged";
  /** The URIs whose result is not the version given, in the order asked. */
  changed: WatchChange[];
  /** Every URI watched, with the version of its result now: the next call's `resources`. */
  resources: { uri: string; version: string }[];
}

/** One URI of a watch's answer whose result is not the version the agent gave. */
export interface WatchChange {
  uri: string;
  version: string;
  /** What reading the URI returns now (absent when it fails: see `error`). */
  value?: unknown;
  /** Why reading the URI now fails. */
  error?: string;
  /** When livecmd saw the result change (ISO 8601), when it knows. */
  lastModified?: string;
}

/** Tool names as SEP-986 has them: 1 to 128 of letters, digits, `_`, `-` and `.`. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What the watch tool takes: the URIs with the version last seen of each, and how long to wait. */
const WATCH_INPUT_SCHEMA = {
  type: "object",
  properties: {
    resources: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: {
          uri: {
            type: "string",
            description: "A URI this server reads: an expanded resource template or a resource.",
          },
          version: {
            type: "string",
            description: `The version of the result you last saw: from this tool's answer, or \`_meta["${VERSION_META_KEY}"]\` of a read or a call. Left out: any result is news.`,
          },
        },
        required: ["uri"],
        additionalProperties: false,
      },
      description:
        "The URIs to watch, each once, with the version last seen of each; as many as the server lets one connection watch (64 by default).",
    },
    timeoutMs: {
      type: "integer",
      minimum: 0,
      maximum: MAX_WATCH_WAIT_MS,
      default: MAX_WATCH_WAIT_MS,
      description: `How long to wait for a change, in milliseconds; ${MAX_WATCH_WAIT_MS} when absent. 0 only compares the versions.`,
    },
  },
  required: ["resources"],
  additionalProperties: false,
};

/** What the watch tool answers: whether any changed, those that did, and every URI's version now. */
const WATCH_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    status: {
      type: "string",
      enum: ["changed", "unchanged"],
      description:
        '"changed": some result is not the version given (see `changed`); "unchanged": the wait ended with none changed.',
    },
    changed: {
      type: "array",
      items: {
        type: "object",
        properties: {
          uri: { type: "string" },
          version: { type: "string" },
          value: { description: "What reading the URI returns now, as JSON." },
          error: {
            type: "string",
            description: "Why reading the URI now fails, instead of a value.",
          },
          lastModified: {
            type: "string",
            format: "date-time",
            description: "When the server saw the result change, when it knows.",
          },
        },
        required: ["uri", "version"],
        additionalProperties: false,
      },
      description: "The URIs whose result is not the version given, in the order asked.",
    },
    resources: {
      type: "array",
      items: {
        type: "object",
        properties: { uri: { type: "string" }, version: { type: "string" } },
        required: ["uri", "version"],
        additionalProperties: false,
      },
      description:
        "Every URI watched, with the version of its result now: the `resources` of the next call.",
    },
  },
  required: ["status", "changed", "resources"],
  additionalProperties: false,
};

/**
 * The watch tool as `tools/list` lists it, under `name`: the one place it is described, for
 * codegen's catalog.json and for the server alike (the catalog drift check compares the two).
 */
export function watchToolEntry(name: string): ToolEntry {
  return {
    name,
    title: "Watch resources",
    description: `Waits until what any of the given resource URIs returns changes, then answers with the new contents: how to keep an eye on data (a customer, a search) from a host that calls tools but does not subscribe to resources. Give each URI (an expanded resource template, as resources/read takes it) with the version you last saw of it; leave the version out the first time, and the call answers at once with the current contents and versions. Otherwise it answers as soon as one result is no longer the version given (status "changed", with the changed URIs, their new contents and versions), or after timeoutMs (at most ${MAX_WATCH_WAIT_MS}) with status "unchanged". Then call it again with \`resources\` from its answer, as it is.`,
    inputSchema: WATCH_INPUT_SCHEMA,
    outputSchema: WATCH_OUTPUT_SCHEMA,
    annotations: { title: "Watch resources", readOnlyHint: true, idempotentHint: true },
  };
}

/**
 * What is wrong with `name` as the watch tool's name among `commands` (the tools the app lists
 * beside it), or undefined: a name `tools/list` could not hold (`invalid`), or one a command
 * has (`taken`).
 */
export function watchToolNameProblem(
  name: string,
  commands: Iterable<string>,
): { kind: "invalid" | "taken"; message: string } | undefined {
  if (!TOOL_NAME.test(name))
    return {
      kind: "invalid",
      message: `agent.watchTool "${name}" is not a tool name: 1 to 128 letters, digits, "_", "-" or "."`,
    };
  for (const command of commands)
    if (command === name)
      return {
        kind: "taken",
        message: `the watch tool and command ${name} have one name; set agent.watchTool to another name (or false, to serve no watch tool)`,
      };
  return undefined;
}
