import { deepStrictEqual } from "node:assert/strict";
import { templates } from "../generated/templates.ts";
import { measureMicro, ownCallSites, type MicroTask } from "./lib/micro.ts";
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

function tasksOf(workload: UriWorkload): MicroTask[] {
  const all = workload.cases.map((c) => c.uri);
  const task = (contender: string, batch: () => number): MicroTask => ({ label: `${workload.name}: ${contender}`, batch, batchSize: all.length });
  return [
    task(
      "livecmd templates.*.parse",
      ownCallSites(
        (uris, parsers) => {
          let ok = 0;
          for (let i = 0; i < uris.length; i++) if (parsers[i]!(uris[i]!).ok) ok++;
          return ok;
        },
        all,
        workload.cases.map((c) => readers.livecmd[c.template]),
      ),
    ),
    task(
      "SDK UriTemplate.match + conversions",
      ownCallSites(
        (uris, parsers) => {
          let ok = 0;
          for (let i = 0; i < uris.length; i++) if (parsers[i]!(uris[i]!) !== undefined) ok++;
          return ok;
        },
        all,
        workload.cases.map((c) => readers.sdk[c.template]),
      ),
    ),
    task(
      "generic strict matcher",
      ownCallSites(
        (uris, matchers) => {
          let ok = 0;
          for (let i = 0; i < uris.length; i++) if (matchers[i]!.parse(uris[i]!).ok) ok++;
          return ok;
        },
        all,
        workload.cases.map((c) => readers.generic[c.template]),
      ),
    ),
    task(
      "floor: read every character",
      ownCallSites(
        (uris, read) => {
          let sum = 0;
          for (let i = 0; i < uris.length; i++) sum += read(uris[i]!);
          return sum;
        },
        all,
        readEveryCharacter,
      ),
    ),
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
