import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  PROTOCOL_VERSION_META_KEY,
  SdkError,
  SdkErrorCode,
  type ClientCapabilities,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
  type StandardSchemaV1,
} from "@modelcontextprotocol/server";
import type { CommandEntry } from "../../model/catalog.ts";
import type { ArgumentsObject } from "../../model/commandArguments.ts";
import { cutText, shortened } from "../../text/cutText.ts";
import { principalOf } from "../../model/principal.ts";
import { failureMessage } from "../errors/protocolErrors.ts";
import { clientCapabilitiesOf, envelopeOf } from "./clientCapabilities.ts";
import type { SpentConfirmations } from "./spentConfirmations.ts";

/** The key of the one input request a confirmation makes. */
const CONFIRM = "confirm";

/** What the person fills in: nothing, accepting is the yes. */
const NOTHING_TO_FILL = { type: "object" as const, properties: {} };

/**
 * What the server asked a person to confirm, carried by the client from the question to the
 * answer (`requestState`): signed, so a client cannot forge or alter it, bound to the principal
 * that called, and compared with the call it comes back on, so a yes to deleting customer 3 is
 * no yes to deleting customer 4. `id` names this question, so that its yes runs once
 * (`SpentConfirmations`, until `expiresAt`, ms since the epoch).
 */
interface AskedToConfirm {
  tool: string;
  arguments: ArgumentsObject;
  id: string;
  expiresAt: number;
}

/** How a confirm command's call stands. */
export type ConfirmationStep =
  | { kind: "confirmed" }
  | { kind: "declined"; action: "decline" | "cancel" }
  /** Nobody answered within the timeout (2025 era). */
  | { kind: "unanswered"; timeoutMs: number }
  /** The client answered with an error, or with something no elicitation answers (2025 era). */
  | { kind: "failed"; why: string }
  /** A yes already spent: its command ran (2026-07-28). */
  | { kind: "spent" }
  /** The client cannot ask anyone (it declared no form elicitation): today's answer. */
  | { kind: "cannot-ask" }
  /** Ask the person: return this from `tools/call` (2026-07-28). */
  | { kind: "ask"; result: InputRequiredResult };

/**
 * Confirmations over MCP, by form elicitation. On 2026-07-28 the call returns an
 * `InputRequiredResult` whose `requestState` the client echoes with the person's answer; the
 * state is signed with `ServedApp.stateKey` (`requestStateKey` to share one between replicas),
 * expires after `timeoutMs`, and its yes is spent once. On the 2025 era the call sends
 * `elicitation/create` itself and waits `timeoutMs` for the answer (the SDK's shim for the same
 * result has no timeout of its own choosing and words a bad answer as a zod dump); a shared
 * session's answer reaching another replica is relayed to this one (`sessionAnswers.ts`).
 */
export class Confirmations {
  readonly #codec: RequestStateCodec<AskedToConfirm>;
  readonly #timeoutMs: number;
  readonly #spent: SpentConfirmations;

  constructor(key: Uint8Array | string, timeoutMs: number, spent: SpentConfirmations) {
    this.#timeoutMs = timeoutMs;
    this.#spent = spent;
    this.#codec = createRequestStateCodec<AskedToConfirm>({
      key,
      ttlSeconds: ttlSecondsOf(timeoutMs),
      // Only the principal who called may answer (over HTTP with auth; elsewhere there is none).
      bind: (ctx) => `${ctx.mcpReq.method}\0${principalOf(ctx.http?.authInfo) ?? ""}`,
    });
  }

  /** For `ServerOptions.requestState.verify`: a state that fails is the SDK's -32602. */
  readonly verify = (state: string, ctx: ServerContext): Promise<AskedToConfirm> =>
    this.#codec.verify(state, ctx);

  /**
   * Where a call of confirm command `entry` with `values` stands: confirmed by the person,
   * declined, unanswered, not askable, or (2026-07-28) to be asked now.
   */
  async step(
    entry: CommandEntry,
    values: ArgumentsObject,
    question: string | undefined,
    ctx: ServerContext,
    declared: ClientCapabilities | undefined,
  ): Promise<ConfirmationStep> {
    if (!canAskForm(ctx, declared)) return { kind: "cannot-ask" };
    const message = confirmationMessage(entry, values, question);
    if (envelopeOf(ctx)?.[PROTOCOL_VERSION_META_KEY] === undefined)
      return this.#askNow(message, ctx);
    const asked = ctx.mcpReq.requestState<AskedToConfirm>();
    if (
      typeof asked === "object" &&
      typeof asked.id === "string" &&
      asked.tool === entry.name &&
      isDeepStrictEqual(asked.arguments, values)
    ) {
      const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
      if (answer.kind === "elicit" && answer.action !== "accept")
        return { kind: "declined", action: answer.action };
      if (answer.kind === "elicit")
        return (await this.#spent.spend(asked.id, asked.expiresAt))
          ? { kind: "confirmed" }
          : { kind: "spent" };
    }
    return { kind: "ask", result: await this.#question(entry, values, message, ctx) };
  }

  /** The 2026-07-28 question, with a fresh signed state. */
  async #question(
    entry: CommandEntry,
    values: ArgumentsObject,
    message: string,
    ctx: ServerContext,
  ): Promise<InputRequiredResult> {
    const ttlSeconds = ttlSecondsOf(this.#timeoutMs);
    // The codec's expiry is whole seconds from the second it mints in: kept past it, whatever
    // second that is.
    const expiresAt = (Math.floor(Date.now() / 1000) + ttlSeconds + 2) * 1000;
    const asked = { tool: entry.name, arguments: values, id: randomUUID(), expiresAt };
    return inputRequired({
      inputRequests: {
        [CONFIRM]: inputRequired.elicit({ message, requestedSchema: NOTHING_TO_FILL }),
      },
      requestState: await this.#codec.mint(asked, ctx),
    });
  }

  /**
   * The 2025-era question, sent on the call's own stream: the person's answer, or why there is
   * none. A call the client cancelled is never answered, so its abort is thrown on.
   */
  async #askNow(message: string, ctx: ServerContext): Promise<ConfirmationStep> {
    let answer: unknown;
    try {
      answer = await ctx.mcpReq.send(
        {
          method: "elicitation/create",
          params: { mode: "form", message, requestedSchema: NOTHING_TO_FILL },
        },
        ANY_ANSWER,
        { timeout: this.#timeoutMs, signal: ctx.mcpReq.signal },
      );
    } catch (error) {
      if (ctx.mcpReq.signal.aborted) throw error;
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        return { kind: "unanswered", timeoutMs: this.#timeoutMs };
      return { kind: "failed", why: `the client answered with an error: ${failureMessage(error)}` };
    }
    return stepOf(answer);
  }
}

/** The person's answer to a 2025 question, read by livecmd (`stepOf`), not by the SDK's zod. */
const ANY_ANSWER: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "livecmd", validate: (value) => ({ value }) },
};

/** What an `elicitation/create` answer says, or the one line of what is wrong with it. */
function stepOf(answer: unknown): ConfirmationStep {
  const { action, content } = (answer ?? {}) as { action?: unknown; content?: unknown };
  if (action !== "accept" && action !== "decline" && action !== "cancel")
    return {
      kind: "failed",
      why: `the client's answer is no elicitation result: its action must be "accept", "decline" or "cancel", not ${quoted(action)}`,
    };
  if (
    content !== undefined &&
    (typeof content !== "object" || content === null || Array.isArray(content))
  )
    return {
      kind: "failed",
      why: `the client's answer is no elicitation result: its content must be an object, not ${quoted(content)}`,
    };
  return action === "accept" ? { kind: "confirmed" } : { kind: "declined", action };
}

/** A value of the client's in a message: JSON, cut. */
function quoted(value: unknown): string {
  return value === undefined ? "missing" : shortened(JSON.stringify(value));
}

/** The `requestState` lifetime for a timeout: whole seconds, at least one. */
function ttlSecondsOf(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000));
}

/**
 * Whether the client declared form elicitation: on 2026-07-28 on this request's envelope, on the
 * 2025 era at `initialize` (`declared`). A bare `elicitation: {}` is form, as in 2025-06-18.
 */
function canAskForm(ctx: ServerContext, declared: ClientCapabilities | undefined): boolean {
  const elicitation = clientCapabilitiesOf(ctx, declared)?.elicitation;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The longest argument value the person reads; a client's 1 MB string is cut, not shown whole. */
const MAX_ARGUMENT_TEXT = 500;

/**
 * What the person reads: the app's question (or "Run <command>?"), the arguments one a line
 * (as JSON, each cut to 500 characters), then what the command does.
 */
export function confirmationMessage(
  entry: CommandEntry,
  values: ArgumentsObject,
  question: string | undefined,
): string {
  const lines = Object.entries(values).map(
    ([name, value]) => `  ${name}: ${cutText(JSON.stringify(value), MAX_ARGUMENT_TEXT)}`,
  );
  return [
    question ?? `Run ${entry.title ?? entry.name}?`,
    "",
    `${entry.name}${lines.length > 0 ? " with" : " with no arguments"}`,
    ...lines,
    "",
    entry.description,
  ].join("\n");
}
