/** A node of `EXPLAIN (FORMAT JSON, VERBOSE)`, the fields livecmd reads. */
export interface PlanNode {
  "Node Type"?: string;
  "Relation Name"?: string;
  "Function Name"?: string;
  "Subplan Name"?: string;
  "Join Type"?: string;
  Schema?: string;
  Alias?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Filter?: string;
  "Hash Cond"?: string;
  "Merge Cond"?: string;
  "Join Filter"?: string;
  "Sort Key"?: string[];
  Output?: string[];
  Plans?: PlanNode[];
}

/**
 * The conditions each kind of scan applies to every row it returns. Other scans of a table
 * (TID, sample, foreign...) read it whole.
 */
export const CONDITIONS: Readonly<
  Record<string, readonly ("Index Cond" | "Recheck Cond" | "Filter")[]>
> = {
  "Seq Scan": ["Filter"],
  "Index Scan": ["Index Cond", "Filter"],
  "Index Only Scan": ["Index Cond", "Filter"],
  "Bitmap Heap Scan": ["Recheck Cond", "Filter"],
};

/** Every node below and including `plan`. */
export function planNodes(plan: PlanNode): PlanNode[] {
  const nodes: PlanNode[] = [];
  const pending = [plan];
  for (let node = pending.pop(); node; node = pending.pop()) {
    nodes.push(node);
    pending.push(...(node.Plans ?? []));
  }
  return nodes;
}
