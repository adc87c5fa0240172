import type {
  AuthInfo,
  CallToolResult,
  ClientCapabilities,
  InputRequiredResult,
  ServerContext,
} from "@modelcontextprotocol/server";
import { outputSchemaOf, type CommandEntry } from "../../model/catalog.ts";
import { handlerArgs, type ArgumentsObject } from "../../model/commandArguments.ts";
import { InvalidArguments } from "../../validation/invalidArguments.ts";
import type { ConfirmationStep } from "../policy/confirmation.ts";
import {
  cannotConfirm,
  confirmationFailed,
  confirmationSpent,
  declined,
  invalidToolArguments,
  toolFailed,
  unanswered,
} from "../errors/toolErrors.ts";
import { unknownTool } from "../errors/protocolErrors.ts";
import { progressReporter } from "./progressReporter.ts";
import { resourceLinks } from "./resourceLinks.ts";
import type { ServedApp } from "../served/servedApp.ts";
import { watchResources } from "./watchResources.ts";
import { resultStamp, type ResultStamp } from "./resultStamp.ts";
import { resultText } from "../../live/resultVersion.ts";
import { VERSION_META_KEY } from "../../model/resultMeta.ts";
import { callUri } from "../../model/callUri.ts";
import { VIEW_URI_META_KEY } from "../../model/viewResource.ts";
import type { TokenHolds } from "../../live/tokenHolds.ts";

/** One `tools/call`, as the handler gets it. */
export interface ToolCall {
  name: string;
  values?: ArgumentsObject | undefined;
  /** The verified principal, when the HTTP endpoint authenticates. */
  auth: AuthInfo | undefined;
  /** What ends the call's wait (the watch tool's) when `auth`'s token is revoked or expires. */
  held: TokenHolds;
  ctx: ServerContext;
  /** What the client declared at `initialize` (2025 era); 2026-07-28 carries it on each request. */
  declared: ClientCapabilities | undefined;
}

/**
 * `tools/call` of a granted command. An unknown tool and the rate limit are protocol errors (the
 * request itself was wrong, or must wait); arguments the schema or the command refuses, a
 * command that throws, and a person who declines are tool errors the model reads and acts on
 * (SEP-1303). A confirm command first asks the person, when the client can ask, and runs only
 * on a yes given in time and not used before (`Confirmations`). The resources
 * the command linked to (`ctx.link`) follow the result as `resource_link` content.
 */
export async function callTool(
  served: ServedApp,
  call: ToolCall,
): Promise<CallToolResult | InputRequiredResult> {
  const { name, values = {}, auth, ctx } = call;
  if (served.catalog.isWatchTool(name, auth)) return watchResources(served, call);
  const entry = served.catalog.tool(name, auth);
  if (!entry) throw unknownTool(name);
  const errors = served.validator.validate(entry.inputSchema, values);
  if (errors.length > 0) return invalidToolArguments(name, errors);
  if (entry.confirm) {
    const step = await served.confirmations.step(
      entry,
      values,
      served.confirmQuestion(name),
      ctx,
      call.declared,
    );
    if (step.kind !== "confirmed") return unconfirmed(name, step);
  }
  served.admit(entry);
  const linked: string[] = [];
  const progress = progressReporter(ctx);
  try {
    const args = handlerArgs(entry.arguments, values);
    const result = await served.runAsAgent(entry, args, auth, {
      onLink: (uri) => linked.push(uri),
      signal: ctx.mcpReq.signal,
      ...(progress && { onProgress: progress.report }),
    });
    const answer = toolResult(
      entry,
      result,
      entry.live ? resultStamp(served, name, args, auth, resultText(result)) : undefined,
    );
    const read = entry.view && callUri(entry, values);
    // The URI this call read, for the command's view to watch (the host hands it this result).
    if (read) answer._meta = { ...answer._meta, [VIEW_URI_META_KEY]: read };
    answer.content.push(...resourceLinks(served, name, linked, auth));
    return answer;
  } catch (error) {
    if (InvalidArguments.is(error)) return invalidToolArguments(name, error.errors);
    return toolFailed(error);
  } finally {
    progress?.finish();
  }
}

/** What a call of `tool` answers when its confirmation is not a yes (yet). */
function unconfirmed(
  tool: string,
  step: Exclude<ConfirmationStep, { kind: "confirmed" }>,
): CallToolResult | InputRequiredResult {
  switch (step.kind) {
    case "ask":
      return step.result;
    case "cannot-ask":
      return cannotConfirm(tool);
    case "declined":
      return declined(tool, step.action);
    case "unanswered":
      return unanswered(tool, step.timeoutMs);
    case "failed":
      return confirmationFailed(tool, step.why);
    case "spent":
      return confirmationSpent(tool);
  }
}

/**
 * The result as JSON text and, when the tool publishes an `outputSchema`, as `structuredContent`
 * too (the spec asks for both; the SDK's codec wraps a non-object value as `{ result }` on the
 * 2025 era, as it does the listed schema). A live command's carries its version (`_meta`) and,
 * where livecmd knows it, when it last changed (the text's `annotations.lastModified`).
 */
function toolResult(entry: CommandEntry, result: unknown, stamp?: ResultStamp): CallToolResult {
  const text = resultText(result);
  const content: CallToolResult["content"] = [
    {
      type: "text",
      text,
      ...(stamp?.lastModified !== undefined && {
        annotations: { lastModified: stamp.lastModified },
      }),
    },
  ];
  return {
    content,
    ...(outputSchemaOf(entry) && { structuredContent: result ?? null }),
    ...(stamp && { _meta: { [VERSION_META_KEY]: stamp.version } }),
  };
}
