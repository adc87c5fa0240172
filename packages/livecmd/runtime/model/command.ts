import type { Context } from "./context.ts";

export interface RateLimit {
  /** Calls allowed per window, reads and tool calls together. */
  max: number;
  /** Window length in milliseconds. */
  perMs: number;
}

export interface CommandOptions {
  /** The command's name; defaults to its export name. */
  name?: string;
  /** Read-only: may be read as a resource and watched. */
  live?: boolean;
  /**
   * A person must confirm before an agent runs it; never a resource. Over MCP the server asks
   * the person through the client (elicitation) with the command, its arguments and its
   * description; `{ message }` puts the app's own question first.
   */
  confirm?: boolean | { message: string };
  title?: string;
  /**
   * What a host may assume about the tool (MCP tool annotations), beyond what livecmd derives
   * itself (`readOnlyHint` from `live`, `destructiveHint` from `confirm`, `title`).
   */
  annotations?: CommandAnnotations;
  /** Defaults to application/json. */
  mimeType?: string;
  /**
   * A live view of the result for hosts that render MCP Apps (`ui://app/<command>`, linked from
   * the tool): `true` for livecmd's own, drawn from the result's JSON Schema; `{ html }` for the
   * app's own page (a path from this file), whose scripts render with `livecmd.onResult`. Either
   * keeps itself current through the watch tool. Needs `live: true` and a template or resource.
   */
  view?: boolean | { html: string };
  rateLimit?: RateLimit;
}

/** The tool annotations an app states; the others are derived from the command's options. */
export interface CommandAnnotations {
  /** Calling it again with the same arguments changes nothing more. */
  idempotentHint?: boolean;
  /** It reaches beyond the app's own data (the web, another service). */
  openWorldHint?: boolean;
}

/** Whether a command asks a person first (`confirm: true` or `confirm: { message }`). */
export function needsConfirmation(options: CommandOptions): boolean {
  return options.confirm === true || typeof options.confirm === "object";
}

export type Handler<A extends unknown[], R> = (ctx: Context, ...args: A) => R | Promise<R>;

export interface Command<A extends unknown[] = any[], R = unknown> {
  readonly kind: "livecmd.command";
  readonly options: Readonly<CommandOptions>;
  readonly handler: Handler<A, R>;
}

/**
 * Declares a command. The generator reads `options` as a literal and the handler's parameter
 * types, so keep `options` an object literal of literals.
 */
export function command<A extends unknown[], R>(
  options: CommandOptions,
  handler: Handler<A, R>,
): Command<A, R> {
  return Object.freeze({
    kind: "livecmd.command",
    options: Object.freeze({ ...options }),
    handler,
  });
}

export function isCommand(value: unknown): value is Command {
  return (
    typeof value === "object" && value !== null && (value as Command).kind === "livecmd.command"
  );
}
