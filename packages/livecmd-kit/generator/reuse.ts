import type { Node, SourceFile } from "ts-morph";

/**
 * What one generation computed, handed to the next (`codegen --watch`), so an edit costs the
 * commands it can have changed, not the whole app. Each value is kept under an owner object (a
 * declaration, a command's syntax, its plan) and the name of a part computed from it: a stage
 * asks for a part, and gets the last generation's unless the owner's source is `affected`.
 * Owners are the stages' plain data and ts-morph's nodes, never changed once made: a command
 * whose file changed has new nodes, and so new syntax, analysis, plan and printed parts.
 * A generation keeps only what it asked for, so what an edit removed is forgotten.
 */
export class Reuse {
  #previous = new Map<object, Map<string, unknown>>();
  #current = new Map<object, Map<string, unknown>>();
  #affected: ReadonlySet<SourceFile> | "all" = "all";

  /** Starts a generation in which the sources in `affected` (or all) may have changed. */
  nextGeneration(affected: ReadonlySet<SourceFile> | "all"): void {
    this.#previous = this.#current;
    this.#current = new Map();
    this.#affected = affected;
  }

  /** Whether `node`'s source may have changed since the last generation, or what it imports. */
  affected(node: Node): boolean {
    return this.#affected === "all" || this.#affected.has(node.getSourceFile());
  }

  /**
   * `compute()`'s value for `owner`'s `part`: the last generation's when it had one and it is
   * `fresh` (or `fresh(it)` says so). A stale value is handed to `compute`, to build on.
   */
  of<T>(
    owner: object,
    part: string,
    compute: (last: T | undefined) => T,
    fresh: Freshness<T> = true,
  ): T {
    const parts = this.#current.get(owner) ?? new Map<string, unknown>();
    this.#current.set(owner, parts);
    if (parts.has(part)) return parts.get(part) as T;
    const previous = this.#previous.get(owner);
    const last = previous?.has(part) ? (previous.get(part) as T) : undefined;
    const keep = previous?.has(part) && (typeof fresh === "function" ? fresh(last as T) : fresh);
    const value = keep ? (last as T) : compute(last);
    parts.set(part, value);
    return value;
  }

  /** What this generation made for `owner`'s `part`, if it asked for it. */
  made<T>(owner: object, part: string): T | undefined {
    return this.#current.get(owner)?.get(part) as T | undefined;
  }
}

/** Whether a value of the last generation still holds: known before, or judged by the value. */
export type Freshness<T> = boolean | ((last: T) => boolean);

/** `compute()` itself when there is nothing to reuse (a one-off codegen): the stages' common case. */
export function reused<T>(
  reuse: Reuse | undefined,
  owner: object,
  part: string,
  compute: () => T,
  fresh: Freshness<T> = true,
): T {
  return reuse ? reuse.of(owner, part, compute, fresh) : compute();
}
