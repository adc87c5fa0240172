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
  /** A person must confirm before an agent runs it; never a resource. */
  confirm?: boolean;
  title?: string;
  /** Defaults to application/json. */
  mimeType?: string;
  rateLimit?: RateLimit;
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
