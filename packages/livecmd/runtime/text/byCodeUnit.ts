/**
 * Code-unit order of strings: the same on every machine and locale, unlike `localeCompare`.
 * Every sort of names in livecmd, at build time and at runtime, goes through it.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
