/**
 * The plain data that flows between the generator's stages. Only discover/ and analyze/ see
 * ts-morph; from plan/ on everything is JSON-able and testable without a TypeScript program.
 */
import type { JsonSchema } from "livecmd/internal";

export type { JsonSchema };

export interface SourceLocation {
  /** POSIX path relative to the working directory. */
  file: string;
  line: number;
  column: number;
}

/** A problem in the app's source that stops generation (exit code 2). */
export interface Diagnostic {
  code: DiagnosticCode;
  message: string;
  location: SourceLocation;
  /** The offending source line, for a code frame. */
  sourceLine: string;
}

/** Each code means one thing; docs/mcp.md has the table. */
export type DiagnosticCode =
  | "CG001" // command(...) is not called as command(options, (ctx, ...args) => ...)
  | "CG002" // a command option is not a literal
  | "CG003" // a parameter has no type annotation, or is destructured
  | "CG004" // a type that has no JSON form (Map, Date, function, bigint, ...)
  | "CG005" // two commands with one name (or one generated type name), or a command named as the watch tool
  | "CG006" // the grant lists something that is not one of the app's commands
  | "CG007" // no defineApp(...) call in the app module, or more than one
  | "CG008" // a command without a JSDoc summary
  | "CG009" // commands or grant come through an import that does not resolve
  | "CG010" // a command name that cannot be a URI segment and a tool name, or a watch tool name that is no tool name
  | "CG011" // defineApp({...}) is not written out the way codegen reads it
  | "CG012" // the app's name is not a URI scheme
  | "CG013" // a constraint tag (@minimum, @format, ...) with a bad value, or on a type it does not fit
  | "CG014"; // confirm or annotations written other than livecmd reads them

export interface StatedAnnotations {
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ParamDecl {
  name: string;
  optional: boolean;
  /** The parameter's type as written, for messages. */
  typeText: string;
  /** The parameter's JSON Schema; nullable scalars carry `"type": [T, "null"]`. */
  schema: JsonSchema;
  location: SourceLocation;
}

export interface CommandDecl {
  name: string;
  live: boolean;
  confirm: boolean;
  granted: boolean;
  title?: string;
  /** The tool annotations the app states (`command({ annotations })`). */
  annotations: StatedAnnotations;
  description: string;
  mimeType: string;
  params: ParamDecl[];
  /**
   * The JSON Schema of what the command returns, through `Promise` (the tool's `outputSchema`
   * and the template's result type); `{}` when the return type says nothing (`unknown`, `any`).
   */
  result: JsonSchema;
  /** `command({ view })`: livecmd's view (`"default"`), or the app's own HTML, as written. */
  view?: ViewOption;
  location: SourceLocation;
}

/** A command's live view as its options ask for it. */
export type ViewOption = { kind: "default" } | { kind: "html"; html: string };

export interface AppDecl {
  /** The app's name: its URI scheme. */
  name: string;
  /** What the app is, as `defineApp({ description })` says. */
  description?: string;
  /** The watch tool's name; null when the app serves none (`agent.watchTool: false`). */
  watchTool: string | null;
  /** The app module, as a POSIX path relative to the working directory. */
  file: string;
  /** In code-unit order of name. */
  commands: CommandDecl[];
}

/** Relative POSIX path inside the output folder -> exact bytes to write. */
export type OutputSet = ReadonlyMap<string, string>;

export { byCodeUnit } from "livecmd/internal";

/**
 * The constraint keywords the JSDoc tags of the same names put in a schema, in the order they
 * go into it (analyze) and into the generated types' doc comments (render).
 */
export const CONSTRAINT_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "default",
] as const;

export type ConstraintKeyword = (typeof CONSTRAINT_KEYWORDS)[number];
