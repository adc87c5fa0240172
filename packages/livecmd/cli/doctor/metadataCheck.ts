import { ok, warn, type Finding } from "./report.ts";
import { sample } from "./wording.ts";

/** The fields of a listing entry that a host renders. */
export interface EntryMetadata {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

interface Shortfall {
  /** Which entries fall short, by name. */
  names: string[];
  problem: string;
  remedy: string;
}

/** RFC 6838 section 4.2: type "/" subtype, restricted names, then any parameters. */
const MEDIA_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(\s*;.*)?$/;

/**
 * What a host builds its menu from: the title it shows (the name when there is none), the
 * description the user and, in some hosts, the model read, and the mimeType it renders and
 * filters by.
 */
export function metadataFinding(
  step: "resource metadata" | "template metadata",
  entries: readonly EntryMetadata[],
): Finding {
  const [kind, kinds] =
    step === "resource metadata" ? ["resource", "resources"] : ["template", "templates"];
  if (entries.length === 0) return ok(step, `no ${kinds}`);
  const shortfalls = [
    shortfall(
      entries,
      (e) => !e.title,
      "no title (the host shows the name)",
      "a title (what the menu shows)",
    ),
    shortfall(
      entries,
      (e) => !e.description,
      "no description",
      "a description (what the user, and in some hosts the model, reads to choose)",
    ),
    shortfall(
      entries,
      (e) => !!e.description && [e.name, e.title].some((same) => equalText(same, e.description)),
      "a description that only repeats the name or title",
      "a description that says what the document holds",
    ),
    shortfall(
      entries,
      (e) => !e.mimeType,
      "no mimeType",
      "a mimeType (hosts render by it, and some leave out of the menu what they cannot attach)",
    ),
    shortfall(
      entries,
      (e) => !!e.mimeType && !MEDIA_TYPE.test(e.mimeType),
      "a mimeType that is not a media type",
      "a media type such as text/markdown for its mimeType",
    ),
  ].filter((found): found is Shortfall => found !== undefined);
  if (shortfalls.length === 0) {
    return ok(step, `every ${kind} has a title, a description and a mimeType (${entries.length})`);
  }
  return warn(
    step,
    shortfalls
      .map(
        ({ names, problem }) =>
          `${names.length} of ${entries.length} with ${problem}: ${sample(names)}`,
      )
      .join("; "),
    `give each entry ${joinAnd(shortfalls.map(({ remedy }) => remedy))}`,
  );
}

function shortfall(
  entries: readonly EntryMetadata[],
  fallsShort: (entry: EntryMetadata) => boolean,
  problem: string,
  remedy: string,
): Shortfall | undefined {
  const names = entries.filter(fallsShort).map((entry) => entry.name);
  return names.length === 0 ? undefined : { names, problem, remedy };
}

function equalText(a: string | undefined, b: string | undefined): boolean {
  const normal = (text: string | undefined) => text?.trim().replace(/[.!]$/, "").toLowerCase();
  return normal(a) !== undefined && normal(a) === normal(b);
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
