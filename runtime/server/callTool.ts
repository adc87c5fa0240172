import type { AuthInfo, CallToolResult } from "@modelcontextprotocol/server";
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
    return { content: [{ type: "text", text: JSON.stringify(result ?? null) }] };
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

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}
