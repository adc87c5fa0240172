import { deepStrictEqual } from "node:assert/strict";
import { templates } from "../generated/templates.ts";
import { measureMicro, type MicroTask } from "./lib/micro.ts";
import { ratio, type BenchModule, type Comparison, type Figure, type Section } from "./lib/section.ts";
import { BENCH_TEMPLATES, FIXTURES_PER_TEMPLATE, uriWorkloads, type BenchTemplate, type UriWorkload } from "./lib/uriFixtures.ts";
import { readEveryCharacter } from "./peers/floor.ts";
import { GenericMatcher } from "./peers/genericMatcher.ts";
import { sdkParser } from "./peers/sdkMatch.ts";

/** Each contender's reader for each template, built once, as a server builds them at startup. */
const readers = {
  livecmd: byTemplate((name) => templates[name].parse as (uri: string) => { ok: boolean }),
  sdk: byTemplate((name) => sdkParser(templates[name].uriTemplate, templates[name].variables)),
  generic: byTemplate((name) => new GenericMatcher(templates[name].uriTemplate, templates[name].variables)),
};

export const parseBench: BenchModule = {
  async run(context) {
    const workloads = uriWorkloads();
    workloads.forEach(checkAgreement);
    context.log(`parse: ${workloads.length} workloads x 4 contenders`);
    const figures = await measureMicro(workloads.flatMap(tasksOf));
    const comparisons = workloads.flatMap((workload) => compare(workload, figures));
    return section(workloads, figures, comparisons);
  },
};

function byTemplate<T>(make: (name: BenchTemplate) => T): Record<BenchTemplate, T> {
  return Object.fromEntries(BENCH_TEMPLATES.map((name) => [name, make(name)])) as Record<BenchTemplate, T>;
}

/** Every contender must read every URI to the same typed variables, or the race is not fair. */
function checkAgreement({ cases }: UriWorkload): void {
  for (const { template, vars, uri } of cases) {
    deepStrictEqual(readers.livecmd[template](uri), { ok: true, vars }, `livecmd on ${uri}`);
    deepStrictEqual(readers.sdk[template](uri), vars, `SDK on ${uri}`);
    deepStrictEqual(readers.generic[template].parse(uri), { ok: true, vars }, `generic on ${uri}`);
  }
}

/*
 * One loop per contender, each its own function literal, so that no call site is shared between
 * contenders: a shared one would turn polymorphic and slow the fastest of them down.
 */
function tasksOf(workload: UriWorkload): MicroTask[] {
  const all = workload.cases.map((c) => c.uri);
  const livecmd = workload.cases.map((c) => readers.livecmd[c.template]);
  const sdk = workload.cases.map((c) => readers.sdk[c.template]);
  const generic = workload.cases.map((c) => readers.generic[c.template]);
  const task = (contender: string, batch: () => number): MicroTask => ({ label: `${workload.name}: ${contender}`, batch, batchSize: all.length });
  return [
    task("livecmd templates.*.parse", () => {
      let ok = 0;
      for (let i = 0; i < all.length; i++) if (livecmd[i]!(all[i]!).ok) ok++;
      return ok;
    }),
    task("SDK UriTemplate.match + conversions", () => {
      let ok = 0;
      for (let i = 0; i < all.length; i++) if (sdk[i]!(all[i]!) !== undefined) ok++;
      return ok;
    }),
    task("generic strict matcher", () => {
      let ok = 0;
      for (let i = 0; i < all.length; i++) if (generic[i]!.parse(all[i]!).ok) ok++;
      return ok;
    }),
    task("floor: read every character", () => {
      let sum = 0;
      for (let i = 0; i < all.length; i++) sum += readEveryCharacter(all[i]!);
      return sum;
    }),
  ];
}

function compare(workload: UriWorkload, figures: Figure[]): Comparison[] {
  const [livecmd, sdk, generic, floor] = figures.filter((figure) => figure.label.startsWith(`${workload.name}: `));
  return [
    ratio(`parse ${workload.name}: SDK match + conversions / livecmd`, sdk!, livecmd!, { op: ">=", value: 5 }),
    ratio(`parse ${workload.name}: generic matcher / livecmd`, generic!, livecmd!),
    ratio(`parse ${workload.name}: livecmd / floor`, livecmd!, floor!, { op: "<=", value: 3 }),
  ];
}

function section(workloads: UriWorkload[], figures: Figure[], comparisons: Comparison[]): Section {
  const lengths = workloads.map(({ name, cases }) => `${name} ${Math.round(cases.reduce((sum, c) => sum + c.uri.length, 0) / cases.length)}`);
  return {
    title: "Parse an expanded URI into typed variables",
    method: [
      `${FIXTURES_PER_TEMPLATE} seeded URIs per template of the example app, built by \`uris.*\` with every optional variable set (the SDK matches nothing else); mean length in characters: ${lengths.join(", ")}.`,
      "Before timing, every contender is checked to read every URI to the same typed variables.",
      "SDK: `new UriTemplate(t)` once per template, then per URI `match`, `decodeURIComponent` and a `Number`/enum check per variable (`bench/peers/sdkMatch.ts`).",
      "Generic: `bench/peers/genericMatcher.ts`, the same strict rules and runtime primitives, driven at run time by the template string and schemas.",
      "Floor: a loop that reads every character once and allocates nothing (`bench/peers/floor.ts`).",
      "Figures are per URI: a tinybench sample is one pass over the workload divided by its size.",
    ],
    figures,
    comparisons,
  };
}
