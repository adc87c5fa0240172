import type { Tool } from "@modelcontextprotocol/client";
import { ok, warn, type Finding } from "./report.ts";
import { plural, sample } from "./wording.ts";

/**
 * What a host assumes of a tool that says nothing (MCP's defaults): it may write, destroy and
 * reach the outside world. So a host that asks the person before risky calls asks before every
 * call of a tool without `readOnlyHint`.
 */
const isReadOnly = (tool: Tool) => tool.annotations?.readOnlyHint === true;
const isDestructive = (tool: Tool) =>
  !isReadOnly(tool) && tool.annotations?.destructiveHint !== false;

/** `tool annotations`: every tool says whether it only reads, so a host need not guess. */
export function annotationsFinding(tools: readonly Tool[]): Finding {
  const step = "tool annotations";
  const unsaid = tools.filter((tool) => tool.annotations?.readOnlyHint === undefined);
  if (unsaid.length > 0)
    return warn(
      step,
      `${unsaid.length} of ${plural(tools.length, "tool")} with no readOnlyHint: a host takes each for a write that may destroy data and asks the person before every call: ${sample(unsaid.map((tool) => tool.name))}`,
      "annotate every tool: readOnlyHint: true when it only reads; for a write, destructiveHint (false when it only adds), idempotentHint and openWorldHint (livecmd derives readOnlyHint from live and destructiveHint from confirm)",
    );
  const reads = tools.filter(isReadOnly).length;
  return ok(
    step,
    `every tool says whether it only reads (${tools.length}): ${reads} read-only, ${plural(tools.length - reads, "write")}`,
  );
}

/** `confirmations`: which tools a host asks the person about before it calls them. */
export function confirmationsFinding(tools: readonly Tool[]): Finding {
  const step = "confirmations";
  const asked = tools.filter(isDestructive);
  const byDefault = asked.filter((tool) => tool.annotations?.destructiveHint === undefined);
  if (byDefault.length > 0)
    return warn(
      step,
      `a host asks the person before ${asked.length} of ${plural(tools.length, "tool")}, ${byDefault.length} of them only because they say nothing: ${sample(byDefault.map((tool) => tool.name))}`,
      "give each write a destructiveHint: true where a person should confirm (in livecmd, confirm: true, which also asks the person by elicitation), false where an agent may run it alone",
    );
  return ok(
    step,
    asked.length === 0
      ? `a host asks the person before none of ${plural(tools.length, "tool")}`
      : `a host asks the person before ${asked.length} of ${plural(tools.length, "tool")} (destructiveHint): ${sample(asked.map((tool) => tool.name))}`,
  );
}
