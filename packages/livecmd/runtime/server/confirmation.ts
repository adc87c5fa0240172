import { isDeepStrictEqual } from "node:util";
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { CommandEntry } from "../model/catalog.ts";
import type { ArgumentsObject } from "../model/commandArguments.ts";
import { cutText } from "../text/cutText.ts";
import { principalOf } from "./auth/principal.ts";

/** The key of the one input request a confirmation makes. */
const CONFIRM = "confirm";

/**
 * What the server asked a person to confirm, carried by the client from the question to the
 * answer (`requestState`): signed, so a client cannot forge or alter it, bound to the principal
 * that called, and compared with the call it comes back on, so a yes to deleting customer 3 is
 * no yes to deleting customer 4.
 */
interface AskedToConfirm {
  tool: string;
  arguments: ArgumentsObject;
}

/** How a confirm command's call stands. */
export type ConfirmationStep =
  | { kind: "confirmed" }
  | { kind: "declined"; action: "decline" | "cancel" }
  /** The client cannot ask anyone (it declared no form elicitation): today's answer. */
  | { kind: "cannot-ask" }
  /** Ask the person: return this from `tools/call`. */
  | { kind: "ask"; result: InputRequiredResult };

/**
 * Confirmations over MCP, by form elicitation: on 2026-07-28 an `InputRequiredResult` whose
 * `requestState` the client echoes with the person's answer; on the 2025 era the SDK's legacy
 * shim sends the same request as `elicitation/create` on the connection and re-enters the call.
 * The state is signed with `ServedApp.stateKey` (`requestStateKey` to share one between
 * replicas) and expires after ten minutes.
 */
export class Confirmations {
  readonly #codec: RequestStateCodec<AskedToConfirm>;

  constructor(key: Uint8Array | string) {
    this.#codec = createRequestStateCodec<AskedToConfirm>({
      key,
      ttlSeconds: 600,
      // Only the principal who called may answer (over HTTP with auth; elsewhere there is none).
      bind: (ctx) => `${ctx.mcpReq.method}\0${principalOf(ctx.http?.authInfo) ?? ""}`,
    });
  }

  /** For `ServerOptions.requestState.verify`: a state that fails is the SDK's -32602. */
  readonly verify = (state: string, ctx: ServerContext): Promise<AskedToConfirm> =>
    this.#codec.verify(state, ctx);

  /**
   * Where a call of confirm command `entry` with `values` stands: confirmed by the person,
   * declined, not askable, or to be asked now.
   */
  async step(
    entry: CommandEntry,
    values: ArgumentsObject,
    question: string | undefined,
    ctx: ServerContext,
    declared: ClientCapabilities | undefined,
  ): Promise<ConfirmationStep> {
    if (!canAskForm(ctx, declared)) return { kind: "cannot-ask" };
    const asked = ctx.mcpReq.requestState<AskedToConfirm>();
    if (
      typeof asked === "object" &&
      asked.tool === entry.name &&
      isDeepStrictEqual(asked.arguments, values)
    ) {
      const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
      if (answer.kind === "elicit")
        return answer.action === "accept"
          ? { kind: "confirmed" }
          : { kind: "declined", action: answer.action };
    }
    const requestState = await this.#codec.mint({ tool: entry.name, arguments: values }, ctx);
    return {
      kind: "ask",
      result: inputRequired({
        inputRequests: {
          [CONFIRM]: inputRequired.elicit({
            message: confirmationMessage(entry, values, question),
            // Nothing to fill in: accepting is the yes.
            requestedSchema: { type: "object", properties: {} },
          }),
        },
        requestState,
      }),
    };
  }
}

/**
 * Whether the client declared form elicitation: on 2026-07-28 on this request's envelope, on the
 * 2025 era at `initialize` (`declared`). A bare `elicitation: {}` is form, as in 2025-06-18.
 */
function canAskForm(ctx: ServerContext, declared: ClientCapabilities | undefined): boolean {
  const capabilities =
    ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
      CLIENT_CAPABILITIES_META_KEY
    ] as ClientCapabilities | undefined) ?? declared;
  const elicitation = capabilities?.elicitation;
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
