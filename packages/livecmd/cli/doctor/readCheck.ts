import {
  ResourceNotFoundError,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from "@modelcontextprotocol/client";
import type { Session } from "./connect.ts";
import { errorText } from "./errorText.ts";
import { expandTemplate } from "./expandTemplate.ts";
import { fail, ok, warn, type Finding } from "./report.ts";
import { parseTemplate } from "./templateGrammar.ts";
import { templateValues, type TemplateValues, type ValueSource } from "./templateValues.ts";
import { uriProblem } from "./uriGrammar.ts";
import { plural } from "./wording.ts";

/** A finding, and the URI it read when the read worked (something to subscribe to). */
export interface ReadOutcome {
  finding: Finding;
  readUri?: string;
}

const RESOURCE_STEP = "resources/read";
const TEMPLATE_STEP = "read template";

/**
 * Fault 4 of the four: a listed resource whose read fails, the one fault that reaches the user
 * as an error with a URI in it. The first entry that is a URI is read (entries that are not are
 * the resource uris step's); nothing when there is none.
 */
export async function readResourceOutcome(
  session: Session,
  resources: readonly Resource[],
  timeoutMs: number,
): Promise<ReadOutcome | undefined> {
  const resource = resources.find(({ uri }) => uriProblem(uri) === undefined);
  if (!resource) return undefined;
  const read = await readUri(session, resource.uri, timeoutMs);
  if (!read.ok) {
    return {
      finding: fail(
        RESOURCE_STEP,
        `${resource.uri} fails: ${errorText(read.error, timeoutMs)}; a host lists it, and whoever picks it gets this error`,
        "make resources/read serve every uri that resources/list gives, or stop listing what it cannot serve",
      ),
    };
  }
  return {
    finding: contentFinding(RESOURCE_STEP, resource.uri, read.result, resource.mimeType),
    readUri: resource.uri,
  };
}

/**
 * One expansion of the template, with the values a host could offer (completion, or the
 * description's examples), read. A document the values do not name is the values' fault as
 * likely as the server's, so "not found" only warns; any other error fails like fault 4.
 */
export async function readTemplateOutcome(
  session: Session,
  template: ResourceTemplate,
  timeoutMs: number,
): Promise<ReadOutcome | undefined> {
  const parsed = parseTemplate(template.uriTemplate);
  if (!parsed.ok) return undefined;
  const chosen = await templateValues(session, template, parsed.parts, timeoutMs);
  const declaresCompletions = session.client.getServerCapabilities()?.completions !== undefined;
  if (chosen.missing.length > 0)
    return { finding: missingValuesFinding(template, chosen, declaresCompletions) };
  const uri = expandTemplate(parsed.parts, chosen.values);
  const expansion = `${template.uriTemplate} as ${uri}${sourcesText(chosen)}`;
  const read = await readUri(session, uri, timeoutMs);
  if (read.ok) {
    const finding = contentFinding(TEMPLATE_STEP, expansion, read.result, template.mimeType);
    return { finding: withCompletionErrors(finding, chosen), readUri: uri };
  }
  const error = errorText(read.error, timeoutMs);
  if (read.error instanceof ResourceNotFoundError) {
    return {
      finding: warn(
        TEMPLATE_STEP,
        `${expansion}: not found (${error})`,
        "offer values that name a document: complete the variables with completion/complete, or give an example in the description that exists",
      ),
    };
  }
  return {
    finding: fail(
      TEMPLATE_STEP,
      `${expansion} fails: ${error}; a host that expands the template gets this error`,
      "make resources/read serve every expansion of the template",
    ),
  };
}

type Read = { ok: true; result: ReadResourceResult } | { ok: false; error: unknown };

async function readUri(session: Session, uri: string, timeoutMs: number): Promise<Read> {
  try {
    return {
      ok: true,
      result: await session.client.readResource(
        { uri },
        { cacheMode: "bypass", timeout: timeoutMs },
      ),
    };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * What came back, against what the listing promised: some contents (a document that does not
 * exist is an error, not an empty result), of the listed mimeType.
 */
function contentFinding(
  step: string,
  what: string,
  result: ReadResourceResult,
  listedMimeType: string | undefined,
): Finding {
  const { contents } = result;
  if (contents.length === 0) {
    return warn(
      step,
      `${what}: no contents, so a host attaches nothing`,
      "return the document's contents, and an error (-32602) for a document that does not exist",
    );
  }
  const mimeTypes = [...new Set(contents.map((content) => content.mimeType ?? "no mimeType"))];
  const summary = `${what}: ${plural(contents.length, "content")}, ${mimeTypes.join(", ")}`;
  const mismatched =
    listedMimeType !== undefined && mimeTypes.some((type) => type !== listedMimeType);
  if (mismatched) {
    return warn(
      step,
      `${summary}, but the listing says ${listedMimeType}: a host that prepared for one finds the other`,
      "list the mimeType the read returns",
    );
  }
  return ok(step, summary);
}

function missingValuesFinding(
  template: ResourceTemplate,
  chosen: TemplateValues,
  declaresCompletions: boolean,
): Finding {
  const how = declaresCompletions
    ? `completion/complete suggests none${chosen.completionErrors.length > 0 ? ` (${chosen.completionErrors.join("; ")})` : ""}`
    : "completions are not declared";
  return warn(
    TEMPLATE_STEP,
    `${template.uriTemplate}: no value to try for ${chosen.missing.join(", ")}: ${how} and the description gives no example; a host shows a bare text field the user fills from memory`,
    `give an example in the description ("e.g. ...") or complete ${chosen.missing.join(", ")} with completion/complete`,
  );
}

/** A read that worked still leaves a host's autocomplete broken when completion fails. */
function withCompletionErrors(finding: Finding, { completionErrors }: TemplateValues): Finding {
  if (finding.status !== "ok" || completionErrors.length === 0) return finding;
  return warn(
    finding.step,
    `${finding.detail}; completion/complete fails for ${completionErrors.join("; ")}`,
    "answer completion/complete for every variable of a template, with no values when there is nothing to suggest",
  );
}

const SOURCE_WORDS: Record<ValueSource, string> = {
  completion: "from completion/complete",
  description: "from the description",
};

function sourcesText({ sources }: TemplateValues): string {
  const bySource = new Map<string, string[]>();
  for (const [name, source] of sources) {
    const words = SOURCE_WORDS[source];
    bySource.set(words, [...(bySource.get(words) ?? []), name]);
  }
  const parts = [...bySource].map(([words, names]) => `${names.join(", ")} ${words}`);
  return parts.length === 0 ? "" : ` (${parts.join("; ")})`;
}
