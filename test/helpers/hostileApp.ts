import { writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * An app whose text tries every layout rule of the generated files: descriptions with both
 * quote kinds, backticks, `${`, backslashes, comment markers and non-ASCII, lines far past 100
 * columns, enum unions too long for a line, long and very short names, many query variables,
 * a long list of numbers in a tool's schema, and property keys an identifier in some alphabets
 * and not in others (prettier quotes a key unless it is an ES5 identifier).
 */
export async function writeHostileApp(dir: string): Promise<string> {
  const file = path.join(dir, "app.ts");
  await writeFile(file, HOSTILE_APP);
  return file;
}

const LONG =
  "a sentence long enough to run well past the hundredth column of any line it is printed on, and then some more";

const HOSTILE_APP = `import { command, defineApp, type Int } from "livecmd";

export type Mood = "cheerful" | "melancholic" | "indifferent" | "exuberant" | "contemplative" | "mischievous" | "serene";
export type Quoted = 'say "hi"' | "it's" | "ends, with a comma," | "back\\\\slash" | "naïve" | "東京" | "tab\\there" | \`tick\\\`tock\`;
export type OneValue = "only";
export type Level = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23 | 24 | 25 | 26 | 27 | 28 | 29 | 30;

export interface Wide {
  /** Text with "double" quotes, 'single' quotes, \`backticks\`, \${not_a_hole}, a \\\\ backslash, * / and /* markers, café, 東京, 😀. */
  text_with_everything_in_it?: string;
  /** ${LONG}. */
  mood_of_the_person_asking_for_it?: Mood;
  quoted?: Quoted;
  one?: OneValue;
  /** Values that end with the separator JSON puts between them. */
  commas?: "a," | "b, c,";
  /** Counted "twice" and 'once' and "again". */
  a?: Int;
  b?: boolean;
  extraordinarily_long_optional_variable_name_number_one?: number;
  extraordinarily_long_optional_variable_name_number_two?: string;
}

/**
 * Reads "quoted" things and 'single' ones, \`code\`, \${template}, C:\\\\path, * / and /* — ${LONG}; ünïcödé and 中文 too.
 * @param identifier_that_is_rather_long_for_a_path An id, "quoted" twice, 'once'.
 * @param mood ${LONG}.
 */
export const a_command_name_that_is_long_enough_to_push_every_line_of_its_own_past_the_width = command(
  { live: true, title: 'The "hostile" one' },
  async (ctx, identifier_that_is_rather_long_for_a_path: Int, mood: Mood, wide: Wide) => [identifier_that_is_rather_long_for_a_path, mood, wide],
);

/** Short. */
export const s = command({ live: true }, async (ctx, x: Int, q?: Quoted) => [x, q]);

/** Only query variables, "all" of them optional. */
export const only_query = command({ live: true }, async (ctx, wide?: Wide) => wide);

/** Path variables only: 'three' of them. */
export const three_path_variables_with_long_names = command(
  { live: true },
  async (ctx, first_path_variable_name: string, second_path_variable_name: Int, third_path_variable_name: boolean) => [
    first_path_variable_name,
    second_path_variable_name,
    third_path_variable_name,
  ],
);

/** Keys: an identifier in Latin, Hebrew and with a joiner; an astral letter, a middle dot and a hyphen are not (ES5). */
export interface Keys {
  café: string;
  ℵx?: Int;
  "a\u200cb"?: boolean;
  "𐊧"?: string;
  "a·b"?: string;
  "a-b"?: string;
}

/** A live command whose result has those keys. */
export const keys = command({ live: true }, async (ctx, id: Int): Promise<Keys> => ({ café: String(id) }));

/** A tool only, with a long list of numbers. */
export const levels = command({}, async (ctx, level: Level, moods: Mood[]) => [level, moods]);

export default defineApp({
  name: "hostile",
  commands: {
    a_command_name_that_is_long_enough_to_push_every_line_of_its_own_past_the_width,
    s,
    only_query,
    three_path_variables_with_long_names,
    levels,
    keys,
  },
  agent: {
    grant: [a_command_name_that_is_long_enough_to_push_every_line_of_its_own_past_the_width, s, only_query, three_path_variables_with_long_names, levels, keys],
  },
});
`;
