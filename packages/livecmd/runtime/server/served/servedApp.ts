import { randomBytes } from "node:crypto";
import { entryPackageVersion } from "./packageVersion.ts";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { App, RunOptions } from "../../model/app.ts";
import { type AppEngine } from "../../model/appEngine.ts";
import { engineOf } from "../../model/attachedEngine.ts";
import type { CommandEntry } from "../../model/catalog.ts";
import { Origin } from "../../model/context.ts";
import type { LiveStats } from "../../live/liveRegistry.ts";
import { describeRerunFailure } from "../../live/rerunFailures.ts";
import { LiveRoom } from "../../live/liveRoom.ts";
import type { SubscriptionLimits } from "../../live/limitDefaults.ts";
import { argumentValidator } from "../../validation/argumentValidator.ts";
import { requireResultMatch, ResultMismatch } from "../../validation/resultMismatch.ts";
import { catalogDrift, StaleCatalogError } from "../policy/catalogDrift.ts";
import { Confirmations } from "../policy/confirmation.ts";
import { DEFAULT_CONFIRM_TIMEOUT_MS } from "../policy/confirmTimeout.ts";
import { GrantedCatalog } from "../policy/grantedCatalog.ts";
import { DEFAULT_PAGE_SIZE } from "./defaultPageSize.ts";
import { LIVE_REFUSALS } from "../errors/limitErrors.ts";
import { rateLimited } from "../errors/protocolErrors.ts";
import { rateLimiterOf, type RateLimiter } from "../policy/rateLimiter.ts";
import { holderOf } from "../log/requestContext.ts";
import { resolveUri } from "./resolveUri.ts";
import { RefusalLog } from "../log/refusalLog.ts";
import { serverLog, type ServerLog } from "../log/serverLog.ts";
import { SpentInMemory, type SpentConfirmations } from "../policy/spentConfirmations.ts";

export interface ServeOptions {
  /** Entries per page of `tools/list`, `resources/list` and `resources/templates/list`. */
  pageSize?: number;
  /**
   * Errors no request can carry: a re-run for subscribers that threw, an update that could not
   * be sent. An error line of `log` when absent.
   */
  onerror?: (error: Error) => void;
  /** Where log lines go: `serverLog()` (readable lines on stderr) when absent. */
  log?: ServerLog;
  /**
   * Serve although catalog.json no longer matches the app's commands (`catalogDrift`): the
   * catalog as it is, minus commands the app lost. Otherwise a stale catalog is a
   * `StaleCatalogError`: an agent would see yesterday's grant.
   */
  allowStale?: boolean;
  /**
   * `serverInfo.version` when the app sets none (the CLI passes the version of the package.json
   * beside the app module); else the entry script's package's (`entryPackageVersion`).
   */
  version?: string;
  /** How many URIs and listens may be watched at once; `DEFAULT_SUBSCRIPTION_LIMITS` for what is not given. */
  limits?: Partial<SubscriptionLimits>;
  /**
   * Check every result of a read or a call against the command's `resultSchema`; a mismatch is
   * the request's error (naming the command and the fields) and goes to `onerror`, and the server
   * keeps serving. For development: `LIVECMD_CHECK_RESULTS=1` turns it on when this is absent.
   */
  checkResults?: boolean;
  /**
   * The key (32 bytes or more) that signs what a client carries between a confirmation's question
   * and the person's answer on 2026-07-28 (`requestState`). A random key of this process when
   * absent: give every replica behind one endpoint the same key, so any of them accepts an answer
   * to another's question. `LIVECMD_REQUEST_STATE_KEY` when this is absent.
   */
  requestStateKey?: string | Uint8Array;
  /**
   * The app's agent skill, served through the SDK's skills extension (`skills/list`,
   * `skills/get`, its files by `resources/read`): the folder codegen writes, loaded with
   * `await loadSkills("src/generated/skills")` (`livecmd/server`). Served when the app serves
   * resources, which the extension needs.
   */
  skills?: SkillsExtension;
  /**
   * How long a person has to answer a confirmation: a 2025-era call waits this long for the
   * answer, then ends with a tool error (nothing ran); a 2026-07-28 `requestState` expires after
   * it. `DEFAULT_CONFIRM_TIMEOUT_MS` (five minutes) when absent.
   */
  confirmTimeoutMs?: number;
}

/**
 * The key that signs what clients carry back: `given` (`requestStateKey`), else
 * `LIVECMD_REQUEST_STATE_KEY`, else random. One that is too short is refused in the words of
 * where it came from (the SDK's own refusal names its function).
 */
function stateKeyOf(given: string | Uint8Array | undefined): string | Uint8Array {
  const key = given ?? (process.env.LIVECMD_REQUEST_STATE_KEY || undefined);
  if (key === undefined) return randomBytes(32);
  const bytes = typeof key === "string" ? Buffer.byteLength(key) : key.byteLength;
  if (bytes < MIN_STATE_KEY_BYTES)
    throw new Error(
      `livecmd: ${given === undefined ? "LIVECMD_REQUEST_STATE_KEY" : "requestStateKey"} must be at least ${MIN_STATE_KEY_BYTES} bytes, got ${bytes}; make one with \`openssl rand -base64 32\` and give every replica the same`,
    );
  return key;
}

/** What the SDK's state codec asks of a key: 256 bits. */
const MIN_STATE_KEY_BYTES = 32;

/**
 * Where accepted confirmations are recorded: the shared database's table, else this process.
 * Asked at the first, so that serving opens no database before a command needs it.
 */
function spentOf(engine: AppEngine): SpentConfirmations {
  let spent: SpentConfirmations | undefined;
  return {
    spend: (id, expiresAt) =>
      (spent ??= engine.spentConfirmations() ?? new SpentInMemory()).spend(id, expiresAt),
  };
}

/** `serverInfo.version` of an app that gives none, from neither `defineApp` nor a package.json. */
const UNVERSIONED = "0.0.0";

/** What a serving entry tells about its live subscriptions (tests and measurements read it). */
export interface LiveStatus {
  stats(): LiveStats;
  /**
   * The live commands whose runs made no statement livecmd saw (each named once on the log):
   * livecmd cannot tell what they read, so every write re-runs them.
   */
  unseen(): readonly string[];
  /** Resolves once every write so far has been re-run and notified. */
  settled(): Promise<void>;
}

/** Everything the MCP handlers share across connections and requests for one app. */
export class ServedApp {
  /** The app as the server drives it. */
  readonly engine: AppEngine;
  readonly catalog: GrantedCatalog;
  readonly validator = argumentValidator();
  readonly pageSize: number;
  /** `serverInfo`: the app's name, version and description. */
  readonly serverInfo: { name: string; version: string; description?: string };
  readonly onerror: (error: Error) => void;
  readonly log: ServerLog;
  /** Requests refused for the client's own fault, logged apart from `onerror` (`RefusalLog`). */
  readonly refusals: RefusalLog;
  /** Every URI watched by the connections this entry serves: admitted, limited, re-run on writes. */
  readonly room: LiveRoom;
  /** Asks a person before a confirm command runs. */
  /**
   * What signs the state clients carry back (a confirmation's `requestState`, a listen's event
   * ids): `requestStateKey`, else random per process.
   */
  readonly stateKey: Uint8Array | string;
  readonly confirmations: Confirmations;
  /** The app's agent skill, when it is served. */
  readonly skills: SkillsExtension | undefined;
  /** Whether a URI is one of the skill's files, as the first server instance's extension says. */
  #ownsSkillFile: ((uri: string) => boolean) | undefined;
  readonly #limiter: RateLimiter;
  readonly #checkResults: boolean;

  constructor(app: App, options: ServeOptions = {}) {
    const engine = engineOf(app);
    if (!engine.generated) {
      throw new Error(
        `livecmd: app "${app.name}" has no generated catalog; run \`npx livecmd codegen\` and pass defineApp({ generated: { catalog, templates } })`,
      );
    }
    const drift = catalogDrift(engine, engine.generated.catalog);
    if (drift.length > 0 && !options.allowStale) {
      throw new StaleCatalogError(
        `livecmd: catalog.json no longer matches app "${app.name}": ${drift.join("; ")}. Run \`npx livecmd codegen\` (then your build, where the app is compiled) and restart (or serve the catalog as it is: \`allowStale: true\` in the serving options, \`--allow-stale\` for livecmd serve)`,
      );
    }
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1)
      throw new Error(`livecmd: page size must be a positive integer, got ${pageSize}`);
    this.engine = engine;
    this.catalog = new GrantedCatalog(engine, engine.generated);
    this.pageSize = pageSize;
    this.#limiter = rateLimiterOf(app);
    const log = (this.log = options.log ?? serverLog());
    this.onerror = options.onerror ?? ((error) => log.error(error.message));
    this.refusals = new RefusalLog(log);
    this.#checkResults = options.checkResults ?? process.env.LIVECMD_CHECK_RESULTS === "1";
    this.room = new LiveRoom(app, {
      limits: options.limits,
      // Resolved as a read is, but not counted against the rate limit: the agent asks for one
      // watch, and the re-runs that follow are caused by the app's writes.
      resolve: (uri, auth) => {
        const { entry, args } = resolveUri(this, uri, auth);
        return { command: entry.name, args };
      },
      // The skill's files and the views do not change while served: watching one costs nothing.
      isStatic: (uri) => this.catalog.isView(uri) || (this.#ownsSkillFile?.(uri) ?? false),
      holderOf,
      wire: LIVE_REFUSALS,
      onError: (failure) => this.onerror(new Error(describeRerunFailure(failure))),
      onUnseen: (warning) => log.warn(warning),
    });
    this.serverInfo = {
      name: app.name,
      version: app.version ?? options.version ?? entryPackageVersion() ?? UNVERSIONED,
      ...(app.description !== undefined && { description: app.description }),
    };
    if (drift.length > 0)
      this.onerror(new Error(`serving a stale catalog.json (allowStale): ${drift.join("; ")}`));
    this.stateKey = stateKeyOf(options.requestStateKey);
    const confirmTimeoutMs = options.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
    if (!(confirmTimeoutMs > 0 && Number.isFinite(confirmTimeoutMs)))
      throw new Error(
        `livecmd: confirmTimeoutMs must be a positive number of milliseconds, got ${confirmTimeoutMs}`,
      );
    this.confirmations = new Confirmations(this.stateKey, confirmTimeoutMs, spentOf(engine));
    this.skills = options.skills;
  }

  /**
   * Says how the app's database changes are captured (PostgreSQL: logical decoding or triggers,
   * and why; the bus), once the database is open: what a serving entry tells at its start, so
   * an endpoint mounted in the app's own server says it as `livecmd serve` does.
   */
  sayCapture(): void {
    const { engine, log } = this;
    // Only PostgreSQL has more than one way to capture changes.
    if (!engine.hasDatabase || !engine.db.captureText) return;
    engine.ready().then(
      () => {
        const capture = engine.db.captureText?.();
        if (capture) log.info(capture.replace(/^livecmd: /, ""));
      },
      // A database that cannot open is told by every request that needs it.
      () => {},
    );
  }

  /**
   * Learns the skill's files from a server instance's extension (`attachSkills`): they are
   * resources that do not change while served, so watching one is acknowledged and costs nothing.
   */
  servesSkillFiles(owns: (uri: string) => boolean): void {
    this.#ownsSkillFile ??= owns;
  }

  /** Counts a run against the command's rate limit; over the limit, throws the retry hint. */
  admit(entry: CommandEntry): void {
    const retryAfterMs = this.#limiter.take(
      entry.name,
      this.engine.commands.get(entry.name)?.options.rateLimit,
    );
    if (retryAfterMs > 0) throw rateLimited(entry.name, retryAfterMs);
  }

  /** The app's own question for confirm command `name` (`confirm: { message }`), if it has one. */
  confirmQuestion(name: string): string | undefined {
    const confirm = this.engine.commands.get(name)?.options.confirm;
    return typeof confirm === "object" ? confirm.message : undefined;
  }

  /** Runs a command for the agent, through the app's middleware; checks the result when asked. */
  runAsAgent(
    entry: CommandEntry,
    args: readonly unknown[],
    auth: AuthInfo | undefined,
    request: Pick<RunOptions, "onLink" | "signal" | "onProgress"> = {},
  ): Promise<unknown> {
    const running = this.engine.run(entry.name, args, { ...request, origin: Origin.Agent, auth });
    return this.#checkResults ? running.then((result) => this.#checked(entry, result)) : running;
  }

  #checked(entry: CommandEntry, result: unknown): unknown {
    try {
      requireResultMatch(entry, result);
    } catch (error) {
      // A mismatch is also a line for the developer; a result with no JSON form fails as unchecked.
      if (error instanceof ResultMismatch) this.onerror(error);
      throw error;
    }
    return result;
  }

  /** Stops re-running on writes; the subscriptions were removed by the connections that held them. */
  close(): void {
    this.room.close();
  }
}
