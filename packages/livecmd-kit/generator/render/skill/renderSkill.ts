import type { SkillPlan } from "../../plan/planSkill.ts";
import { referencePage } from "./referencePage.ts";
import { skillPage } from "./skillPage.ts";
import { reused, type Reuse } from "../../reuse.ts";

/**
 * The agent skill's files, under `skills/<name>/` of the output folder: SKILL.md, and a
 * reference page for each URI an agent can read (one page would not hold every variable and
 * result type of a big app; the skill links each). With `reuse`, a page whose command is unchanged
 * is not written again.
 */
export function renderSkill(skill: SkillPlan, notice: string, reuse?: Reuse): [string, string][] {
  const folder = `skills/${skill.name}`;
  return [
    [
      `${folder}/SKILL.md`,
      skillPage(skill, notice, reuse && { reuse, file: `${folder}/SKILL.md` }),
    ],
    ...skill.readable.map((readable): [string, string] => [
      `${folder}/${readable.reference}`,
      reused(reuse, readable, `page ${notice}`, () => referencePage(readable, notice)),
    ]),
  ];
}
