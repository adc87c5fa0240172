import { deepStrictEqual } from "node:assert/strict";
import { templates } from "../generated/templates.ts";
import { MICRO_ROUNDS, measureMicro, ownCallSites, type MicroTask } from "./lib/micro.ts";
import {
  passes,
  ratio,
  type BenchModule,
  type Comparison,
  type Figure,
  type Section,
} from "./lib/section.ts";
import {
  BENCH_TEMPLATES,
  FIXTURES_PER_TEMPLATE,
  uriWorkloads,
  type BenchTemplate,
  type UriWorkload,
} from "./lib/uriFixtures.ts";
import { readEveryCharacter } from "./peers/floor.ts";
import { GenericMatcher } from "../test/helpers/genericMatcher.ts";
import { sdkParser } from "./peers/sdkMatch.ts";

/** Each contender's reader for each template, built once, as a server builds them at startup. */
const readers = {
  livecmd: byTemplate((name) => templates[name].parse as Parse),
  sdk: byTemplate((name) => sdkParser(templates[name].uriTemplate, templates[name].variables)),
  generic: byTemplate(
    (name) => new GenericMatcher(templates[name].uriTemplate, templates[name].variables),
  ),
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
  return Object.fromEntries(BENCH_TEMPLATES.map((name) => [name, make(name)])) as Record<
    BenchTemplate,
    T
  >;
}

/** Every contender must read every URI to the same typed variables, or the race is not fair. */
function checkAgreement({ cases, complete }: UriWorkload): void {
  for (const { template, vars, uri } of cases) {
    deepStrictEqual(readers.livecmd[template](uri), { ok: true, vars }, `livecmd on ${uri}`);
    if (complete) deepStrictEqual(readers.sdk[template](uri), vars, `SDK on ${uri}`);
    deepStrictEqual(readers.generic[template].parse(uri), { ok: true, vars }, `generic on ${uri}`);
  }
}

const CONTENDERS = {
  livecmd: "livecmd templates.*.parse",
  sdk: "SDK UriTemplate.match + conversions",
  generic: "generic strict matcher",
  floor: "floor: read every character",
};

type Parse = (uri: string) => { ok: boolean };
type SdkParse = (uri: string) => object | undefined;

/* The loops the tasks run, one per contender; each task gets its own compiled copy. */

function parseAll(uris: string[], parsers: Parse[]): number {
  let ok = 0;
  for (let i = 0; i < uris.length; i++) if (parsers[i]!(uris[i]!).ok) ok++;
  return ok;
}

function sdkParseAll(uris: string[], parsers: SdkParse[]): number {
  let ok = 0;
  for (let i = 0; i < uris.length; i++) if (parsers[i]!(uris[i]!) !== undefined) ok++;
  return ok;
}

function genericParseAll(uris: string[], matchers: GenericMatcher[]): number {
  let ok = 0;
  for (let i = 0; i < uris.length; i++) if (matchers[i]!.parse(uris[i]!).ok) ok++;
  return ok;
}

function readAll(uris: string[], read: (uri: string) => number): number {
  let sum = 0;
  for (let i = 0; i < uris.length; i++) sum += read(uris[i]!);
  return sum;
}

function tasksOf(workload: UriWorkload): MicroTask[] {
  const all = workload.cases.map((c) => c.uri);
  const task = (contender: string, batch: () => number): MicroTask => ({
    label: `${workload.name}: ${contender}`,
    batch,
    batchSize: all.length,
  });
  const tasks = [
    task(
      CONTENDERS.livecmd,
      ownCallSites(
        parseAll,
        all,
        workload.cases.map((c) => readers.livecmd[c.template]),
      ),
    ),
    task(
      CONTENDERS.generic,
      ownCallSites(
        genericParseAll,
        all,
        workload.cases.map((c) => readers.generic[c.template]),
      ),
    ),
    task(CONTENDERS.floor, ownCallSites(readAll, all, readEveryCharacter)),
  ];
  if (workload.complete)
    tasks.splice(
      1,
      0,
      task(
        CONTENDERS.sdk,
        ownCallSites(
          sdkParseAll,
          all,
          workload.cases.map((c) => readers.sdk[c.template]),
        ),
      ),
    );
  return tasks;
}

function compare(workload: UriWorkload, figures: Figure[]): Comparison[] {
  const figure = (contender: string) =>
    figures.find((candidate) => candidate.label === `${workload.name}: ${contender}`);
  const [livecmd, sdk, generic, floor] = [
    figure(CONTENDERS.livecmd)!,
    figure(CONTENDERS.sdk),
    figure(CONTENDERS.generic)!,
    figure(CONTENDERS.floor)!,
  ];
  return [
    ...(sdk
      ? [
          ratio(`parse ${workload.name}: SDK match + conversions / livecmd`, sdk, livecmd, {
            op: ">=",
            value: 5,
          }),
        ]
      : []),
    ratio(`parse ${workload.name}: generic matcher / livecmd`, generic, livecmd),
    ratio(`parse ${workload.name}: livecmd / floor`, livecmd, floor, { op: "<=", value: 3 }),
  ];
}

function section(workloads: UriWorkload[], figures: Figure[], comparisons: Comparison[]): Section {
  const lengths = workloads.map(
    ({ name, cases }) =>
      `${name} ${Math.round(cases.reduce((sum, c) => sum + c.uri.length, 0) / cases.length)}`,
  );
  return {
    title: "Parse an expanded URI into typed variables",
    method: [
      `${FIXTURES_PER_TEMPLATE} seeded URIs per template of the example app, built by \`uris.*\` with every optional variable set (the SDK matches nothing else), and the same customers_index URIs with each optional variable left out at random (without the SDK); mean length in characters: ${lengths.join(", ")}.`,
      "Before timing, every contender is checked to read every URI to the same typed variables.",
      "SDK: `new UriTemplate(t)` once per template, then per URI `match`, `decodeURIComponent` and a `Number`/enum check per variable (`bench/peers/sdkMatch.ts`).",
      "Generic: `test/helpers/genericMatcher.ts`, the same strict rules and runtime primitives, driven at run time by the template string and schemas.",
      "Floor: a loop that reads every character once and allocates nothing (`bench/peers/floor.ts`).",
      `Figures are per URI: a tinybench sample is one pass over the workload divided by its size; ${MICRO_ROUNDS.rounds} rounds in which every contender runs ${MICRO_ROUNDS.timeMs} ms in turn (after ${MICRO_ROUNDS.warmupMs} ms of warm-up).`,
    ],
    figures,
    comparisons,
    notes: floorNotes(comparisons),
  };
}

function floorNotes(comparisons: Comparison[]): string[] {
  const missed = comparisons.some(
    (comparison) => comparison.label.endsWith("/ floor") && passes(comparison) === false,
  );
  if (!missed) return [];
  const generic = comparisons
    .filter((comparison) => comparison.label.includes("generic"))
    .map((comparison) => comparison.value);
  const range = `${Math.min(...generic).toFixed(2)}x to ${Math.max(...generic).toFixed(2)}x`;
  return [
    "Against the floor: a strict parse slices every value out of the URI, decodes its escapes, fills the split record (a null-prototype object by contract, which V8 keeps as a hash table), converts each value and returns a new `{ ok, vars }`; the floor allocates nothing.",
    `The generic matcher, on the same runtime primitives, takes ${range} the generated parsers' time: the cost is in those primitives, not in the code generated around them.`,
  ];
}
