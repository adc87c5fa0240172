/**
 * The "table" a statement reads when the runtime cannot tell which tables it reads (a function
 * the plan does not look into): a subscription that read it re-runs on every write. Reported as
 * changed, it re-runs every subscription (after a lost connection to the change feed). No real
 * table is named like this.
 */
export const ANY_TABLE = "\u0000any table";
