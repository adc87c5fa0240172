import type {
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from "@modelcontextprotocol/client";
import { capabilityFinding } from "./capabilityCheck.ts";
import type { Session } from "./connect.ts";
import { listingFinding } from "./listingCheck.ts";
import { metadataFinding } from "./metadataCheck.ts";
import { readResourceOutcome, readTemplateOutcome } from "./readCheck.ts";
import type { Finding } from "./report.ts";
import { subscriptionFinding } from "./subscriptionCheck.ts";
import { templateSyntaxFinding } from "./templateSyntaxCheck.ts";
import { annotationsFinding, confirmationsFinding } from "./toolAnnotationsCheck.ts";
import { uriFinding } from "./uriCheck.ts";
import { walkListing, type ListingPage } from "./walkListing.ts";

/**
 * A host's discovery sequence on one connection, a step each: capabilities, both listings to
 * their ends, what the entries say, one read per listing and per template, then subscriptions.
 * The listings are walked even when resources are not declared (a host would not), because
 * entries behind an undeclared capability are fault 1.
 */
export async function diagnoseEra(session: Session, timeoutMs: number): Promise<Finding[]> {
  const resourceWalk = await walkListing((cursor) =>
    listingPage(session, "resources/list", cursor, timeoutMs),
  );
  const templateWalk = await walkListing((cursor) =>
    listingPage(session, "resources/templates/list", cursor, timeoutMs),
  );
  const resources = resourceWalk.items;
  const templates = templateWalk.items;
  const capabilities = session.client.getServerCapabilities();
  const findings = [
    capabilityFinding(capabilities, { resources: resources.length, templates: templates.length }),
  ];
  const declared = capabilities?.resources !== undefined;
  if (!declared && resources.length + templates.length === 0)
    return [...findings, ...(await toolFindings(session, timeoutMs))];
  findings.push(
    listingFinding("resources/list", resourceWalk, (entry) => entry.uri, declared, timeoutMs),
    listingFinding(
      "resources/templates/list",
      templateWalk,
      (entry) => entry.uriTemplate,
      declared,
      timeoutMs,
    ),
    uriFinding(resources),
    templateSyntaxFinding(templates),
    metadataFinding("resource metadata", resources),
    metadataFinding("template metadata", templates),
  );
  const reads = [await readResourceOutcome(session, resources, timeoutMs)];
  for (const template of templates)
    reads.push(await readTemplateOutcome(session, template, timeoutMs));
  for (const read of reads) if (read) findings.push(read.finding);
  const readUri = reads.find((read) => read?.readUri !== undefined)?.readUri;
  findings.push(await subscriptionFinding(session, readUri, timeoutMs));
  return [...findings, ...(await toolFindings(session, timeoutMs))];
}

/**
 * What the tools tell a host about asking the person: whether each only reads, and which it
 * should confirm. None for a server without tools.
 */
async function toolFindings(session: Session, timeoutMs: number): Promise<Finding[]> {
  if (session.client.getServerCapabilities()?.tools === undefined) return [];
  const tools = (
    await walkListing((cursor) => listingPage(session, "tools/list", cursor, timeoutMs))
  ).items;
  if (tools.length === 0) return [];
  return [annotationsFinding(tools), confirmationsFinding(tools)];
}

/** What each listing a host walks holds, and under which key of its pages. */
interface ListingEntries {
  "resources/list": Resource;
  "resources/templates/list": ResourceTemplate;
  "tools/list": Tool;
}

const ENTRIES_KEY: { readonly [M in keyof ListingEntries]: string } = {
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
  "tools/list": "tools",
};

/** One page of a listing, as a host asks for it: the cursor it was given, or none for the first. */
async function listingPage<M extends keyof ListingEntries>(
  session: Session,
  method: M,
  cursor: string | undefined,
  timeoutMs: number,
): Promise<ListingPage<ListingEntries[M]>> {
  const params = cursor === undefined ? {} : { cursor };
  const result = (await session.client.request(
    { method: method as keyof ListingEntries, params },
    { timeout: timeoutMs },
  )) as unknown as Record<string, unknown> & { nextCursor?: string };
  return {
    items: result[ENTRIES_KEY[method]] as ListingEntries[M][],
    nextCursor: result.nextCursor,
  };
}
