import os from "node:os";
import { passes, type Comparison, type Figure, type Section } from "./lib/section.ts";

/** The machine and runtime the figures were measured on, read when the run starts and ends. */
export interface Environment {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average at the start and the end: other work on the machine shows up here. */
  loadBefore: number;
  loadAfter: number;
  seconds: number;
}

export function environmentNow(): Omit<Environment, "loadAfter" | "seconds"> {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadBefore: os.loadavg()[0]!,
  };
}

/** The whole RESULTS.md: machine, every ratio against its target, then each section's detail. */
export function renderReport(environment: Environment, sections: readonly Section[]): string {
  return [
    "# livecmd benchmarks",
    "",
    "Written by `npm run bench` (`bench/run.ts`); do not edit by hand. Every ratio compares figures measured in the same run;",
    "figures measured in rounds (the micro-benchmarks' rounds, the cold runs' repetitions) are compared round by round and the",
    "median of those ratios is shown, so that a busy spell on the machine weighs on both sides of a ratio alike.",
    "",
    renderEnvironment(environment),
    "## Targets",
    "",
    renderSummary(sections),
    ...sections.map(renderSection),
  ].join("\n");
}

/**
 * `results` (a RESULTS.md) with `sections` measured by a partial run (`--merge`) in place of
 * theirs, or added at the end: their rows of the targets table and their detail, each saying
 * it was measured apart from the full run that heads the file, and on what load.
 */
export function mergeIntoReport(
  results: string,
  environment: Environment,
  sections: readonly Section[],
): string {
  const apart = `measured apart from the full run above (\`npm run bench -- --merge\`; load average ${environment.loadBefore.toFixed(2)} / ${environment.loadAfter.toFixed(2)}, ${Math.round(environment.seconds)} s)`;
  const merged = sections.map((section) => ({
    ...section,
    notes: [...(section.notes ?? []), `This row was ${apart}.`],
  }));
  const titles = new Set(merged.map(({ title }) => title));
  const [head, ...blocks] = results.split("\n## ");
  const kept = blocks.filter((block) => !titles.has(block.slice(0, block.indexOf("\n"))));
  const targets = kept.findIndex((block) => block.startsWith("Targets\n"));
  if (targets < 0) throw new Error("bench: RESULTS.md has no targets table to merge into");
  const rows = kept[targets]!.trimEnd()
    .split("\n")
    .filter((line) => !titles.has(line.slice(2, line.indexOf(" | ", 2))));
  const added = renderSummary(merged).trimEnd().split("\n").slice(2);
  kept[targets] = [...rows, ...added].join("\n") + "\n";
  return [head, ...kept, ...merged.map((section) => renderSection(section).slice(3))].join("\n## ");
}

function renderEnvironment(environment: Environment): string {
  const rows = [
    ["CPU", `${environment.cpu}, ${environment.cores} cores`],
    ["Memory", `${environment.memoryGiB.toFixed(1)} GiB`],
    ["Node", environment.node],
    ["OS", environment.platform],
    [
      "Load average (1 min), start / end",
      `${environment.loadBefore.toFixed(2)} / ${environment.loadAfter.toFixed(2)}`,
    ],
    ["Duration", `${Math.round(environment.seconds)} s`],
  ];
  return table(["", ""], rows) + "\n";
}

function renderSummary(sections: readonly Section[]): string {
  const rows = sections.flatMap((section) =>
    section.comparisons.map((comparison) => [
      section.title,
      comparison.label,
      formatValue(comparison),
      formatTarget(comparison),
      verdict(comparison),
    ]),
  );
  return table(["row", "comparison", "measured", "target", ""], rows) + "\n";
}

function renderSection(section: Section): string {
  const figures = table(
    ["figure", "median", "p25 – p75", "min – max", "samples"],
    section.figures.map((figure) => [
      figure.label,
      formatQuantity(figure.median, figure.unit),
      `${formatQuantity(figure.p25, figure.unit)} – ${formatQuantity(figure.p75, figure.unit)}`,
      `${formatQuantity(figure.min, figure.unit)} – ${formatQuantity(figure.max, figure.unit)}`,
      String(figure.samples),
    ]),
  );
  const comparisons = table(
    ["comparison", "measured", "target", ""],
    section.comparisons.map((comparison) => [
      comparison.label,
      formatValue(comparison),
      formatTarget(comparison),
      verdict(comparison),
    ]),
  );
  const notes = section.notes?.length
    ? ["", "Notes:", "", ...section.notes.map((note) => `- ${note}`)]
    : [];
  return [
    `## ${section.title}`,
    "",
    ...section.method.map((line) => `- ${line}`),
    "",
    figures,
    "",
    comparisons,
    ...notes,
    "",
  ].join("\n");
}

function verdict(comparison: Comparison): string {
  const result = passes(comparison);
  return result === undefined ? "" : result ? "PASS" : "**MISS**";
}

function formatValue(comparison: Comparison): string {
  return comparison.unit === "x"
    ? `${comparison.value.toFixed(2)}x`
    : formatQuantity(comparison.value, comparison.unit);
}

function formatTarget(comparison: Comparison): string {
  const { target } = comparison;
  if (!target) return "—";
  return `${target.op} ${comparison.unit === "x" ? `${target.value}x` : formatQuantity(target.value, comparison.unit)}`;
}

function formatQuantity(value: number, unit: Figure["unit"]): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
