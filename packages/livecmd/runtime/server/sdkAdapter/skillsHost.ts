import {
  ProtocolError,
  type McpServer,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { echoCut, resourceNotFound } from "../errors/protocolErrors.ts";

/**
 * The extension's own requests whose errors quote the request's URI whole ("No skill is served
 * at …", "… is not a directory resource"): `CheckedParamsServer` cuts it, as its `read` here does.
 */
export const SKILL_REQUESTS_QUOTING_URI: ReadonlySet<string> = new Set([
  "skills/get",
  "resources/directory/read",
]);

/** The skill files a server instance serves, through the SDK's skills extension. */
export interface ServedSkills {
  /** Whether `uri` is a skill file's (the extension's resource template), not one of the app's. */
  owns(uri: string): boolean;
  /** `resources/read` of a skill file, as the extension answers it (checked against its digest). */
  read(uri: string, ctx: ServerContext): Promise<ReadResourceResult>;
  /** The skills' `SKILL.md` files, as `resources/list` lists them (each with a title). */
  listed(ctx: ServerContext): Promise<Resource[]>;
}

type ReadCallback = (
  uri: URL,
  variables: Record<string, string | string[]>,
  ctx: ServerContext,
) => Promise<ReadResourceResult>;

/**
 * Attaches the SDK's skills extension (SEP-2640) to `server`, one of livecmd's own `Server`
 * instances. The extension attaches to an `McpServer`, whose resource handlers would replace
 * livecmd's: it is given the part of one it uses instead (behaviour 10 of `index.ts`). Its
 * `skills/list`, `skills/get` and `resources/directory/read` handlers and its capability go on
 * `server` as they are (`CheckedParamsServer` cuts the URI their errors quote); the resource
 * template it registers for the skill files is kept here, for livecmd's `resources/read` and
 * `resources/list` to answer through.
 */
export function attachSkills(skills: SkillsExtension, server: Server): ServedSkills {
  let template: ResourceTemplate | undefined;
  let read: ReadCallback | undefined;
  const host = {
    server,
    isConnected: () => server.transport !== undefined,
    registerResource(
      _name: string,
      registered: ResourceTemplate,
      _config: unknown,
      readCallback: ReadCallback,
    ) {
      template = registered;
      read = readCallback;
    },
  };
  skills.attach(host as unknown as McpServer);
  if (!template || !read)
    throw new Error(
      "livecmd: the SDK's skills extension registered no resource template; is @modelcontextprotocol/server 2.4?",
    );
  const base = template.uriTemplate.toString().split("{")[0]!;
  const list = template.listCallback;
  const readFile = read;
  return {
    owns: (uri) => uri.startsWith(base),
    read: (uri, ctx) => {
      if (!URL.canParse(uri)) throw resourceNotFound(uri);
      return readQuotingCut(readFile, new URL(uri), ctx);
    },
    // Titled, as a host's menu shows a resource by its title (the SDK lists a skill by its name).
    listed: async (ctx) =>
      (list ? (await list(ctx)).resources : []).map((resource) => ({
        title: `${resource.name} (agent skill)`,
        ...resource,
      })),
  };
}

/**
 * A skill file read through the extension, its errors' quotes of the URI cut (`echoCut`): it
 * quotes the URI as parsed (`href`), in "Resource not found: …" and `data.uri` both.
 */
async function readQuotingCut(
  read: ReadCallback,
  uri: URL,
  ctx: ServerContext,
): Promise<ReadResourceResult> {
  try {
    return await read(uri, {}, ctx);
  } catch (error) {
    throw error instanceof ProtocolError ? echoCut(error, uri.href) : error;
  }
}
