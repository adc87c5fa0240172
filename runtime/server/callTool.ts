import type { AuthInfo, CallToolResult } from "@modelcontextprotocol/server";
import { outputSchemaOf, type CommandEntry } from "../catalog.ts";
import { handlerArgs, type ArgumentsObject } from "../commandArguments.ts";
import { InvalidArguments } from "../validation/invalidArguments.ts";
import { failureMessage, invalidArguments, unknownTool } from "./protocolErrors.ts";
import type { ServedApp } from "./servedApp.ts";

/**
 * `tools/call` of a granted command. Unknown tools, invalid arguments and the rate limit are
 * protocol errors (the request was wrong); a command that throws, or one that needs a person's
 * confirmation, or one that refuses its arguments (`InvalidArguments`), is a tool error the
 * model can read and act on.
 */
export async function callTool(
  served: ServedApp,
  name: string,
  values: ArgumentsObject = {},
  auth?: AuthInfo,
): Promise<CallToolResult> {
  const entry = served.catalog.tool(name, auth);
  if (!entry) throw unknownTool(name);
  const errors = served.validator.validate(entry.inputSchema, values);
  if (errors.length > 0) throw invalidArguments(name, errors);
  if (entry.confirm)
    return toolError(
      `${name} needs a person's confirmation, which livecmd cannot ask for over MCP yet; ask the user to run it in the app`,
    );
  served.admit(entry);
  try {
    const result = await served.runAsAgent(entry, handlerArgs(entry.arguments, values), auth);
    return toolResult(entry, result);
  } catch (error) {
    if (InvalidArguments.is(error)) {
      const fields = error.errors.map((field) => `${field.field}: ${field.message}`).join("; ");
      return toolError(
        `Invalid arguments for ${name}: ${fields}; change them and call ${name} again`,
      );
    }
    return toolError(failureMessage(error));
  }
}

/**
 * The result as JSON text and, when the tool publishes an `outputSchema`, as `structuredContent`
 * too (the spec asks for both; the SDK's codec wraps a non-object value as `{ result }` on the
 * 2025 era, as it does the listed schema).
 */
function toolResult(entry: CommandEntry, result: unknown): CallToolResult {
  const text = JSON.stringify(result ?? null);
  if (!outputSchemaOf(entry)) return { content: [{ type: "text", text }] };
  return { content: [{ type: "text", text }], structuredContent: result ?? null };
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}
