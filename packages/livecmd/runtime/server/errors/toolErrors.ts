import type { CallToolResult, ProtocolError } from "@modelcontextprotocol/server";
import { ERROR_META_KEY } from "../../model/resultMeta.ts";
import { cutText } from "../../text/cutText.ts";
import type { FieldError } from "../../uri/template.ts";
import { failureMessage, describe, listedData, listed } from "./protocolErrors.ts";

// The errors a `tools/call` answers as a tool error (SEP-1303): a result the model reads,
// with `isError`, never a JSON-RPC error.

/**
 * `tools/call` arguments the schema, a constraint or the command itself refuses: a tool error
 * (SEP-1303), which the model reads and corrects, naming every field; `_meta[ERROR_META_KEY]`
 * holds the same `errors` a read's `data.errors` does.
 */
export function invalidToolArguments(tool: string, errors: readonly FieldError[]): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `Invalid arguments for ${tool}: ${describe(errors)}; change them and call ${tool} again`,
      },
    ],
    _meta: { [ERROR_META_KEY]: listedData(errors) },
  };
}

/** A confirm command called by a client that cannot ask anyone (no form elicitation declared). */
export function cannotConfirm(tool: string): CallToolResult {
  return toolError(
    `${tool} needs a person's confirmation, and this client cannot ask for it (it declares no form elicitation); ask the user to run it in the app, or use a client that supports elicitation`,
  );
}

/** The person said no (or closed the question): nothing ran. */
export function declined(tool: string, action: "decline" | "cancel"): CallToolResult {
  return toolError(
    action === "decline"
      ? `The person declined to run ${tool}; nothing ran. Do not call it again unless they ask you to`
      : `The person dismissed the confirmation of ${tool} without answering; nothing ran`,
  );
}

/**
 * Nobody answered the question within `timeoutMs`: nothing ran, as after a decline, and the
 * answer that comes later is not taken.
 */
export function unanswered(tool: string, timeoutMs: number): CallToolResult {
  return toolError(
    `Nobody answered the confirmation of ${tool} within ${Math.ceil(timeoutMs / 1000)} s; nothing ran. Ask the user before calling it again`,
  );
}

/** The client answered the question with an error, or with what no elicitation answers: nothing ran. */
export function confirmationFailed(tool: string, why: string): CallToolResult {
  return toolError(`The confirmation of ${tool} failed: ${why}; nothing ran`);
}

/** A 2026-07-28 yes sent again (a retry, a replay): it already ran the command once. */
export function confirmationSpent(tool: string): CallToolResult {
  return toolError(
    `This confirmation of ${tool} was already used: the command ran when it was first sent. To run it again, call ${tool} without requestState and ask the person again`,
  );
}

/** A command that threw during `tools/call`: its message, as a tool error the model can read. */
export function toolFailed(error: unknown): CallToolResult {
  return toolError(failureMessage(error));
}

/** A tool error the model reads: one text, cut to `MAX_ERROR_TEXT` (an app's message may quote anything). */
function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: cutText(message, MAX_ERROR_TEXT) }] };
}

/** The longest text of a tool error (`isError` result). */
const MAX_ERROR_TEXT = 3000;

/**
 * The watch tool's refusal of URIs a read would refuse (a typo, a command the principal may not
 * read): a tool error naming each, with its read's error, so the model fixes them all at once;
 * `_meta[ERROR_META_KEY].errors` holds them as `{ uri, message }`, cut and as many as fit, as
 * `listed` cuts field errors (`more` counts the rest). Nothing was watched.
 */
export function unwatchableUris(
  tool: string,
  refusals: readonly { uri: string; error: unknown }[],
): CallToolResult {
  const { shown, more } = listed(
    refusals.map(({ uri, error }) => ({ field: uri, message: failureMessage(error) })),
  );
  const errors = shown.map(({ field, message }) => ({ uri: field, message }));
  const each = errors.map(({ uri, message }) => `${uri}: ${message}`).join("; ");
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `Cannot watch ${refusals.length === 1 ? "this URI" : `these ${refusals.length} URIs`}, so nothing is watched: ${each}${more > 0 ? `; and ${more} more` : ""}. Watch only URIs resources/read accepts (an expanded template of resources/templates/list), and call ${tool} again`,
      },
    ],
    _meta: { [ERROR_META_KEY]: more > 0 ? { errors, more } : { errors } },
  };
}

/** The watch tool over a limit (`limitReached`'s error): a tool error with its `limit` and `scope`. */
export function watchLimitReached(tool: string, refused: ProtocolError): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: `${refused.message}; nothing is watched. Call ${tool} with fewer URIs, or when another watch has answered`,
      },
    ],
    _meta: { [ERROR_META_KEY]: refused.data },
  };
}
