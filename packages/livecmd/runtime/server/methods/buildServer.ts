import {
  isInputRequiredResult,
  type AuthInfo,
  type Server,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { listingHint, LIVE_READ } from "./cacheHints.ts";
import { callTool } from "./callTool.ts";
import { complete } from "./complete.ts";
import { paginate } from "./pagination.ts";
import { readResource } from "./readResource.ts";
import { readView } from "./readView.ts";
import type { Listings, ResourceEntry } from "../../model/catalog.ts";
import { isViewListing, rendersViews } from "../../model/viewResource.ts";
import { clientCapabilitiesOf } from "../policy/clientCapabilities.ts";
import { attachSkills, CheckedParamsServer } from "../sdkAdapter/index.ts";
import type { ServedApp } from "../served/servedApp.ts";
import { NOTHING_HELD, type TokenHolds } from "../../live/tokenHolds.ts";

/**
 * The capabilities, fixed before any transport starts. `resources` only when some command could
 * ever be read: a granted-at-runtime command cannot add a capability after connect.
 */
export function capabilitiesOf(served: ServedApp): ServerCapabilities {
  return {
    tools: { listChanged: true },
    completions: {},
    ...(served.catalog.hasReadableCommands && {
      resources: { subscribe: true, listChanged: true },
    }),
  };
}

/**
 * One SDK `Server` instance for the app: a connection (stdio, legacy HTTP session) or a single
 * HTTP request (2026-07-28). Cheap to build, and holds no state of its own; everything it answers
 * comes from `served` and the app's grant at the time of the request. `held` ends a waiting watch
 * call whose token is revoked or expires (the HTTP endpoint's, with auth).
 */
export function buildServer(served: ServedApp, held: TokenHolds = NOTHING_HELD): Server {
  const capabilities = capabilitiesOf(served);
  const listing = listingHint(served.engine);
  const server = new CheckedParamsServer(served.serverInfo, {
    capabilities,
    cacheHints: {
      "server/discover": listing,
      "tools/list": listing,
      "resources/list": listing,
      "resources/templates/list": listing,
      "resources/read": LIVE_READ,
    },
    // A confirmation's question and answer travel signed (`Confirmations`).
    requestState: { verify: served.confirmations.verify },
  });
  server.setRequestHandler("tools/list", (request, ctx) => {
    const { tools, nextCursor } = listingPage(served, "tools", request.params?.cursor, authOf(ctx));
    return { tools: tools as Tool[], ...(nextCursor !== undefined && { nextCursor }) };
  });
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name } = request.params;
    const result = await callTool(served, {
      name,
      values: request.params.arguments,
      auth: authOf(ctx),
      held,
      ctx,
      declared: server.getClientCapabilities(),
    });
    if (isInputRequiredResult(result) || result.isError) return result;
    // The schema the tool is listed with, so the 2025 era wraps a non-object result to match it.
    return server.projectCallToolResult(result, served.catalog.outputSchema(name));
  });
  server.setRequestHandler("completion/complete", (request, ctx) =>
    complete(served, request.params, authOf(ctx)),
  );
  if (!capabilities.resources) return server;
  const skills = served.skills && attachSkills(served.skills, server);
  if (skills) served.servesSkillFiles(skills.owns);
  server.setRequestHandler("resources/list", async (request, ctx) => {
    const shown = viewsShown(ctx, server);
    const page = listingPage(served, "resources", request.params?.cursor, authOf(ctx), shown);
    // The skills' SKILL.md files follow the app's resources, on the last page.
    if (!skills || page.nextCursor !== undefined) return page;
    return { ...page, resources: [...page.resources, ...(await skills.listed(ctx))] };
  });
  server.setRequestHandler("resources/templates/list", (request, ctx) =>
    listingPage(served, "resourceTemplates", request.params?.cursor, authOf(ctx)),
  );
  server.setRequestHandler("resources/read", async (request, ctx) => {
    const { uri } = request.params;
    if (skills?.owns(uri)) return skills.read(uri, ctx);
    if (served.catalog.isView(uri)) return readView(served, uri, authOf(ctx));
    return readResource(served, uri, authOf(ctx), ctx.mcpReq.signal);
  });
  return server;
}

/**
 * Which resources a client is listed: views only when it renders them (it declared the MCP Apps
 * extension); any client may still read a view it was given.
 */
function viewsShown(
  ctx: ServerContext,
  server: Server,
): ((entry: ResourceEntry) => boolean) | undefined {
  const views = rendersViews(clientCapabilitiesOf(ctx, server.getClientCapabilities()));
  return views ? undefined : (entry) => !isViewListing(entry);
}

/** The verified principal of a request, when the HTTP endpoint authenticates (else undefined). */
function authOf(ctx: ServerContext): AuthInfo | undefined {
  return ctx.http?.authInfo;
}

/**
 * One page of a listing as `auth` may see it, under the grant as it is now, of the entries
 * `shown` keeps (all when absent): `{ [kind]: entries, nextCursor? }`.
 */
function listingPage<K extends keyof Listings>(
  served: ServedApp,
  kind: K,
  cursor: string | undefined,
  auth: AuthInfo | undefined,
  shown?: (entry: Listings[K][number]) => boolean,
): { [P in K]: Listings[K] } & { nextCursor?: string } {
  const whole: Listings[K] = served.catalog.listings(auth)[kind];
  const listing: readonly { name: string }[] = shown ? whole.filter(shown) : whole;
  const page = paginate(kind, listing, cursor, served.pageSize);
  const entries = { [kind]: page.items } as { [P in K]: Listings[K] };
  return page.nextCursor === undefined ? entries : { ...entries, nextCursor: page.nextCursor };
}
