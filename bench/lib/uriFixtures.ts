import { int } from "../../packages/livecmd/runtime/uri/int.ts";
import { mulberry32 } from "../../test/helpers/mulberry32.ts";
import {
  uris,
  type CustomersIndexVariables,
  type CustomersShowVariables,
  type OrdersBetweenVariables,
} from "../../generated/uris.ts";

/**
 * The example app's templates the URI rows measure, and a fixed, seeded set of realistic
 * variables for each. Every optional variable is set, so that the SDK, which matches only URIs
 * with all their query variables in template order, can read every URI the others read; one
 * more workload leaves some out, as clients do, for the contenders that can read it.
 */
export const BENCH_TEMPLATES = ["customers_show", "customers_index", "orders_between"] as const;
export type BenchTemplate = (typeof BENCH_TEMPLATES)[number];

export interface FixtureVariables {
  customers_show: CustomersShowVariables;
  customers_index: Required<CustomersIndexVariables>;
  orders_between: Required<OrdersBetweenVariables>;
}

/** Per template: enough distinct values to defeat any caching, few enough to stay in cache. */
export const FIXTURES_PER_TEMPLATE = 64;

/** Searches as people type them: mostly ASCII, some needing escapes, a little non-Latin text. */
const SEARCHES = [
  "ada",
  "Lovelace",
  "grace hopper",
  "O'Brien",
  "josé",
  "Müller & Sons",
  "50% off",
  "a+b",
  "東京",
  "smith",
  "acme.io",
  "x_y-z",
];
const DIRECTIONS = ["asc", "desc"] as const;
const SORTS = ["name", "created_at", "balance"] as const;
const STATUSES = ["pending", "paid", "shipped", "cancelled"] as const;

/** One URI to read or build: its template, its variables, and the URI `uris.*` builds from them. */
export interface UriCase {
  template: BenchTemplate;
  vars: object;
  uri: string;
}

export interface UriWorkload {
  name: string;
  cases: UriCase[];
  /** Whether every variable is given: the SDK's `match` reads nothing else. */
  complete: boolean;
}

/**
 * One workload per template, all of them interleaved as a server meets them, then
 * customers_index with some optional variables left out.
 */
export function uriWorkloads(): UriWorkload[] {
  const single = BENCH_TEMPLATES.map((template) => ({
    name: template,
    cases: casesOf(template, fixtureVariables(template)),
    complete: true,
  }));
  const interleaved = single[0]!.cases.flatMap((_, i) =>
    single.map((workload) => workload.cases[i]!),
  );
  const sparse = casesOf("customers_index", fixtureVariables("customers_index").map(leaveSomeOut));
  return [
    ...single,
    { name: "all three, interleaved", cases: interleaved, complete: true },
    { name: "customers_index, some variables absent", cases: sparse, complete: false },
  ];
}

function casesOf(template: BenchTemplate, variables: object[]): UriCase[] {
  const expand = uris[template] as (vars: object) => string;
  return variables.map((vars) => ({ template, vars, uri: expand(vars) }));
}

/** Each variable left out with probability 1/2, by its own seeded draw: about 2.5 of 5 remain. */
function leaveSomeOut(vars: object, index: number): object {
  const random = mulberry32(0xab5e + index);
  return Object.fromEntries(Object.entries(vars).filter(() => random() < 0.5));
}

function fixtureVariables<T extends BenchTemplate>(
  template: T,
  seed = 0x5eed,
): FixtureVariables[T][] {
  const random = mulberry32(seed + BENCH_TEMPLATES.indexOf(template));
  const make = MAKERS[template] as (random: Random) => FixtureVariables[T];
  return Array.from({ length: FIXTURES_PER_TEMPLATE }, () => make(random));
}

type Random = () => number;

const MAKERS: { [T in BenchTemplate]: (random: Random) => FixtureVariables[T] } = {
  customers_show: (random) => ({ id: int(1 + Math.floor(random() * 99_999)) }),
  customers_index: (random) => ({
    direction: pick(random, DIRECTIONS),
    page: int(1 + Math.floor(random() * 50)),
    per_page: int(pick(random, [10, 20, 50, 100])),
    search: pick(random, SEARCHES),
    sort: pick(random, SORTS),
  }),
  orders_between: (random) => {
    const from = dayIn2025(random);
    return { from, to: dayIn2025(random, from), status: pick(random, STATUSES) };
  },
};

function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

/** A `YYYY-MM-DD` day of 2025, not before `notBefore` when given. */
function dayIn2025(random: Random, notBefore = "2025-01-01"): string {
  const start = Date.parse(`${notBefore}T00:00:00Z`);
  const end = Date.parse("2025-12-31T00:00:00Z");
  const day = start + Math.floor((random() * (end - start)) / 86_400_000) * 86_400_000;
  return new Date(day).toISOString().slice(0, 10);
}
