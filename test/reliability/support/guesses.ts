/**
 * URIs an agent might guess for commands it must not read or watch, by why it must not: a live command
 * not granted (customers_export), a granted one that needs confirmation (customers_delete), a
 * granted one that is not live (customers_rename), granted live ones that are tools only
 * (arguments that cannot be URI variables), and commands that do not exist.
 */
export const GUESSED_URIS: readonly [why: string, uri: string][] = [
  ["ungranted", "app://customers_export"],
  ["ungranted", "app://customers_export?page=1"],
  ["ungranted", "app://customers_export/1"],
  ["ungranted", "APP://customers_export"],
  ["ungranted", "app://customers_export#all"],
  ["confirm-only", "app://customers_delete/1"],
  ["confirm-only", "app://customers_delete"],
  ["confirm-only", "app://customers_delete?id=1"],
  ["confirm-only", "App://customers_delete/1"],
  ["not live", "app://customers_rename/1/Ada"],
  ["not live", "app://customers_rename?id=1&name=Ada"],
  ["not live", "app://customers_rename"],
  ["tool only", "app://customers_tagged?tags=vip"],
  ["tool only", "app://customers_tagged/vip"],
  ["tool only", "app://customers_report"],
  ["tool only", "app://customers_search?page=1"],
  ["not live, not granted", "app://orders_create"],
  ["unknown", "app://customers_nowhere/1"],
  ["unknown", "app://customers_exports"],
  ["unknown", "app://customers_delete_all"],
  ["unknown", "app://__proto__"],
  ["unknown", "app://constructor/1"],
];

/** Commands the guesses name that exist: none of them may ever run because of a guess. */
export const GUESSED_COMMANDS = [
  "customers_export",
  "customers_delete",
  "customers_rename",
  "customers_tagged",
  "customers_report",
  "customers_search",
  "orders_create",
];

export const UNKNOWN_URI = "app://does_not_exist";
