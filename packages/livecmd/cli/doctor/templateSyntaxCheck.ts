import type { ResourceTemplateType as ResourceTemplate } from "@modelcontextprotocol/client";
import { expandTemplate } from "./expandTemplate.ts";
import { fail, ok, warn, type Finding } from "./report.ts";
import { parseTemplate, templateLevel, templateVariables } from "./templateGrammar.ts";
import { uriProblem } from "./uriGrammar.ts";
import { sample } from "./wording.ts";

const STEP = "template syntax";

/**
 * Every uriTemplate against RFC 6570, and what it expands to against RFC 3986 (a template whose
 * expansions are not URIs gives a host nothing it can read). A template without variables is
 * one document on the wrong listing.
 */
export function templateSyntaxFinding(templates: readonly ResourceTemplate[]): Finding {
  const broken: string[] = [];
  const constant: string[] = [];
  let level = 1;
  for (const { uriTemplate } of templates) {
    const parsed = parseTemplate(uriTemplate);
    if (!parsed.ok) {
      broken.push(`${uriTemplate} ${parsed.message}`);
      continue;
    }
    const names = templateVariables(parsed.parts);
    if (names.length === 0) constant.push(uriTemplate);
    const sampleUri = expandTemplate(parsed.parts, new Map(names.map((name) => [name, "x"])));
    const problem = uriProblem(sampleUri);
    if (problem) broken.push(`${uriTemplate} expands to ${sampleUri}, which ${problem.message}`);
    level = Math.max(level, templateLevel(parsed.parts));
  }
  if (broken.length > 0) {
    return fail(
      STEP,
      `${sample(broken)}: a host cannot expand it into a URI to read`,
      "write each uriTemplate in RFC 6570's grammar, with literal text that makes a URI around the expressions",
    );
  }
  if (constant.length > 0) {
    return warn(
      STEP,
      `${sample(constant)} has no variables: it is one document, not a family`,
      "list it on resources/list as a resource, with its uri",
    );
  }
  if (templates.length === 0) return ok(STEP, "no templates");
  return ok(
    STEP,
    `every uriTemplate is RFC 6570 (${templates.length}); an expander needs level ${level}`,
  );
}
