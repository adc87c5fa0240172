import { VERSION_META_KEY } from "livecmd/internal";
import type { ReadableSkill, SkillPlan, ToolOnlySkill } from "../../plan/planSkill.ts";
import { code, jsonBlock, page } from "./markdown.ts";
import type { Reuse } from "../../reuse.ts";

/** A numbered step's content column: code under "1. " is three spaces in. */
const STEP = "   ";

/**
 * The skill's SKILL.md: its front matter (the generated-file notice a YAML comment in it, so the
 * file still opens with `---`), then one page an agent reads first: what the app is, each URI it
 * can read with one worked example (its variables and result on its reference page), the tools
 * that are only tools and why, and how to keep an eye on a URI.
 */
export function skillPage(
  skill: SkillPlan,
  notice: string,
  reuse?: { reuse: Reuse; file: string },
): string {
  return page(
    [
      [
        "---",
        `# ${notice}`,
        `name: ${skill.name}`,
        `description: ${yamlString(skill.description)}`,
        "---",
      ],
      [`# ${skill.app}`],
      skill.about === undefined ? [] : [skill.about],
      skill.readable.length === 0 ? [] : readingIntro(skill),
      ...readables(skill.readable),
      ...filling(skill),
      ...toolsOnly(skill.toolOnly),
      ...watching(skill),
    ],
    reuse,
  );
}

/**
 * `text` as a quoted YAML scalar, quoted as prettier quotes it: double quotes (a JSON string is
 * a valid one) unless the text holds more of them than single quotes and nothing a single-quoted
 * scalar cannot hold.
 */
function yamlString(text: string): string {
  const doubles = text.split('"').length - 1;
  const singles = text.split("'").length - 1;
  return doubles > singles && !/[\u0000-\u001f\u007f]/.test(text)
    ? `'${text.replaceAll("'", "''")}'`
    : JSON.stringify(text);
}

function readingIntro(skill: SkillPlan): string[] {
  return [
    `The MCP server ${JSON.stringify(skill.app)} serves its data as resources: a URI for each thing, read with ${code("resources/read")} and watched as it changes. A template is a URI with variables in braces; fill them in to get a URI (below). Each one is also a tool of the same name, which takes the variables as arguments and returns the same JSON. Every result carries its version in ${code(`_meta["${VERSION_META_KEY}"]`)}.`,
  ];
}

function readables(readable: readonly ReadableSkill[]): string[][] {
  if (readable.length === 0) return [];
  return [
    ["## Resources and templates"],
    readable.map((each) => {
      const title = each.title === undefined ? "" : ` (${each.title})`;
      const example = each.examples[0];
      const tried = example ? ` Example: ${code(example.uri)}.` : "";
      return `- ${code(each.uri)}${title}: ${each.description}${tried} Variables and result: [${each.reference}](${each.reference}).`;
    }),
  ];
}

function filling(skill: SkillPlan): string[][] {
  if (!skill.readable.some((each) => each.variables.length > 0)) return [];
  return [
    ["## Filling in a template"],
    [
      `- A variable in the path (${code("{id}")}) is required. Those in the query (${code("{?status}")}) are optional: leave them out, or add ${code("?name=value")}, joined by ${code("&")}, in any order, each at most once.`,
      `- Write an integer as ${code("12")}, a number as ${code("12.5")}, a boolean as ${code("true")} or ${code("false")}, and a string as it is, percent-encoding what a URI cannot hold (${code("/")} as ${code("%2F")}, a space as ${code("%20")}).`,
      "- A URI the server cannot read is an error that names each wrong variable and what it expects: correct it and read again.",
    ],
  ];
}

function toolsOnly(tools: readonly ToolOnlySkill[]): string[][] {
  if (tools.length === 0) return [];
  return [
    ["## Tools only"],
    [`These have no URI to read or watch: call them with ${code("tools/call")}.`],
    tools.map((tool) => {
      const title = tool.title === undefined ? "" : ` (${tool.title})`;
      return `- ${code(tool.command)}${title}: ${tool.description} ${tool.why}${argumentsOf(tool)}`;
    }),
  ];
}

/** ` Arguments: \`name\` (string, required), \`balance\` (number).`, or ` No arguments.` */
function argumentsOf({ arguments: args }: ToolOnlySkill): string {
  if (args.length === 0) return " No arguments.";
  const each = args.map(
    ({ name, type, required }) => `${code(name)} (${type}${required ? ", required" : ""})`,
  );
  return ` Arguments: ${each.join(", ")}.`;
}

function watching(skill: SkillPlan): string[][] {
  // A URI of one thing (a template with a path) shows watching best; else any that has one.
  const first = (
    skill.readable.find((each) => each.variables.some((variable) => variable.required)) ??
    skill.readable.find((each) => each.examples.length > 0)
  )?.examples[0];
  if (!first) return [];
  const subscribing = [
    `Where your host subscribes to resources, subscribe to the URI (${code("subscriptions/listen")}, or ${code("resources/subscribe")}) and read it again on each ${code("notifications/resources/updated")}.`,
  ];
  if (skill.watchTool === null) return [["## Keeping an eye on a URI"], subscribing];
  const tool = code(skill.watchTool);
  return [
    ["## Keeping an eye on a URI"],
    subscribing,
    [`Otherwise, call the ${tool} tool in a loop:`],
    [
      `1. Call ${tool} with the URIs to watch, without versions:`,
      "",
      ...jsonBlock({ resources: [{ uri: first.uri }] }, STEP),
      "",
      `${STEP}It answers at once with ${code('"status": "changed"')}: in ${code("changed")}, each URI's ${code("value")} now and its ${code("version")}; in ${code("resources")}, every URI with its version.`,
      "",
      `2. Call it again with ${code("resources")} from its answer, as it is:`,
      "",
      ...jsonBlock({ resources: [{ uri: first.uri, version: "<version from the answer>" }] }, STEP),
      "",
      `${STEP}It answers as soon as a result changes (${code('"status": "changed"')}: act on what ${code("changed")} holds), or after ${skill.waitSeconds} s with ${code('"status": "unchanged"')}: nothing changed.`,
      "",
      `3. Go on with step 2, each time with the latest answer's ${code("resources")}, for as long as you keep an eye on them.`,
    ],
    [
      `One call watches up to 64 URIs (the server's limit may differ), and ${code("timeoutMs")} shortens its wait. A URI the server cannot read (a typo, a command you may not use) is an error naming it and why: fix it and call again.`,
    ],
  ];
}
