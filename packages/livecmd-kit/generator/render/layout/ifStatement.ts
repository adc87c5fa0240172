import { builders } from "prettier/doc";
import { docUnit, type Line } from "./code.ts";

const { group, indent, line } = builders;

/**
 * `if (test) statement`: on one line when it fits, else with the statement on the next line,
 * one level in, as prettier lays it out.
 */
export function ifStatement(test: string, statement: string): Line {
  return [docUnit(group([`if (${test})`, indent([line, statement])]))];
}
