import type { App } from "../app.ts";
import type { CommandEntry } from "../catalog.ts";
import { Origin } from "../context.ts";
import { ArgumentValidator } from "./argumentValidator.ts";
import { GrantedCatalog } from "./grantedCatalog.ts";
import { DEFAULT_PAGE_SIZE } from "./pagination.ts";
import { rateLimited } from "./protocolErrors.ts";
import { rateLimiterOf, type RateLimiter } from "./rateLimiter.ts";

export interface ServeOptions {
  /** Entries per page of `tools/list`, `resources/list` and `resources/templates/list`. */
  pageSize?: number;
}

/** Everything the MCP handlers share across connections and requests for one app. */
export class ServedApp {
  readonly app: App;
  readonly catalog: GrantedCatalog;
  readonly validator = new ArgumentValidator();
  readonly pageSize: number;
  readonly #limiter: RateLimiter;

  constructor(app: App, options: ServeOptions = {}) {
    if (!app.generated) {
      throw new Error(`livecmd: app "${app.name}" has no generated catalog; run \`livecmd codegen\` and pass defineApp({ generated: { catalog, templates } })`);
    }
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new Error(`livecmd: page size must be a positive integer, got ${pageSize}`);
    this.app = app;
    this.catalog = new GrantedCatalog(app, app.generated);
    this.pageSize = pageSize;
    this.#limiter = rateLimiterOf(app);
  }

  /** Counts a run against the command's rate limit; over the limit, throws the retry hint. */
  admit(entry: CommandEntry): void {
    const retryAfterMs = this.#limiter.take(entry.name, this.app.commands.get(entry.name)?.options.rateLimit);
    if (retryAfterMs > 0) throw rateLimited(entry.name, retryAfterMs);
  }

  /** Runs a command for the agent, through the app's middleware. */
  runAsAgent(entry: CommandEntry, args: readonly unknown[]): Promise<unknown> {
    return this.app.run(entry.name, args, { origin: Origin.Agent });
  }
}
