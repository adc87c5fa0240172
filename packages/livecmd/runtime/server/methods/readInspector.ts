import type { App } from "../../model/app.ts";
import { Origin } from "../../model/context.ts";
import type { TableRead } from "../../db/keyedAccess.ts";
import { exampleUri } from "../../model/templateExamples.ts";
import { isViewListing } from "../../model/viewResource.ts";
import { byCodeUnit } from "../../text/byCodeUnit.ts";
import { resolveUri } from "../served/resolveUri.ts";
import { ServedApp } from "../served/servedApp.ts";

/** What one read of a URI depended on: what a subscription to it would re-run on. */
export interface InspectedRead {
  command: string;
  args: readonly unknown[];
  reads: TableRead[];
  /** The run made no statement livecmd saw: a watch of it re-runs on every write (`ReadSet.unseen`). */
  unseen: boolean;
  /** The run looked at `ctx.auth`: one run per principal. */
  readsPrincipal: boolean;
  /** Why the read failed, when it did. */
  failure: string | undefined;
}

/**
 * Runs the read of a URI once, as an agent would, and tells what it read (`livecmd inspect
 * --reads`). The catalog is taken as it is, stale or not: inspecting is how an author finds out.
 */
export class ReadInspector {
  readonly #served: ServedApp;

  constructor(app: App) {
    this.#served = new ServedApp(app, { allowStale: true });
  }

  /** Throws, before anything runs, for a URI no read accepts. */
  async read(uri: string): Promise<InspectedRead> {
    const { entry, args } = resolveUri(this.#served, uri, undefined);
    const reads: TableRead[] = [];
    let statements = 0;
    let readsPrincipal = false;
    // A read that throws (a row not there yet) still read what it read: a watch of it depends
    // on that, to hear when the row comes.
    const failure = await this.#served.engine
      .run(entry.name, args, {
        origin: Origin.Agent,
        observer: {
          read: (each) => {
            statements += 1;
            reads.push(...each);
          },
          narrowed: (told, each) =>
            told.forEach((read, i) => {
              const at = reads.indexOf(read);
              if (at >= 0) reads[at] = each[i]!;
            }),
          sawPrincipal: () => (readsPrincipal = true),
        },
      })
      .then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    return { command: entry.name, args, reads, unseen: statements === 0, readsPrincipal, failure };
  }

  /**
   * Each command an agent may watch (its template, else its plain resource), with the URI that
   * reads it with its examples, or the path variables no example fills in.
   */
  watchable(): { command: string; listed: string; uri?: string; missing: string[] }[] {
    const { resourceTemplates, resources } = this.#served.catalog.listings(undefined);
    const templated = new Set(resourceTemplates.map(({ name }) => name));
    const own = resources.filter((entry) => !isViewListing(entry) && !templated.has(entry.name));
    return [...resourceTemplates, ...own]
      .map((listed) => {
        const entry = this.#served.catalog.readable(listed.name, undefined)!;
        const listing = "uriTemplate" in listed ? listed.uriTemplate : listed.uri;
        return { command: entry.name, listed: listing, ...exampleUri(entry) };
      })
      .sort((a, b) => byCodeUnit(a.command, b.command));
  }

  close(): void {
    this.#served.close();
  }
}
