/**
 * The plain data that flows between the generator's stages. Only discover/ and analyze/ see
 * ts-morph; from plan/ on everything is JSON-able and testable without a TypeScript program.
 */
import type { JsonSchema } from "../runtime/uri/template.ts";

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

export type DiagnosticCode =
  | "CG001" // command(...) is not called as command(options, (ctx, ...args) => ...)
  | "CG002" // options are not a literal
  | "CG003" // a parameter has no type annotation, or is destructured
  | "CG004" // a type that has no JSON form (Map, Date, function, bigint, ...)
  | "CG005" // two commands with one name
  | "CG006" // the grant lists something that is not one of the app's commands
  | "CG007" // no defineApp(...) call, or more than one
  | "CG008" // a command without a JSDoc summary
  | "CG009"; // commands or grant come through an import that does not resolve

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
  description: string;
  mimeType: string;
  params: ParamDecl[];
  location: SourceLocation;
}

export interface AppDecl {
  /** The app's name: its URI scheme. */
  name: string;
  /** The app module, as a POSIX path relative to the working directory. */
  file: string;
  /** In code-unit order of name. */
  commands: CommandDecl[];
}

/** Relative POSIX path inside the output folder -> exact bytes to write. */
export type OutputSet = ReadonlyMap<string, string>;

/** Code-unit order: the same on every machine and locale, unlike localeCompare. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
