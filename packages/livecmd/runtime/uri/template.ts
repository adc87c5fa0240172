/** One bad variable (or the URI as a whole, as field "uri"), with what to do about it. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A URI read into typed variables, or every error found in it; with those, when the URI was
 * split into its variables, the ones that did convert (`vars`), for the schema to check too.
 */
export type ParseResult<V> =
  { ok: true; vars: V } | { ok: false; errors: FieldError[]; vars?: Partial<V> };

export type JsonSchema = { [keyword: string]: unknown };

export interface TemplateVariable {
  name: string;
  /** Required variables are path segments; optional ones are the form query. */
  in: "path" | "query";
  schema: JsonSchema;
}

/**
 * What the generated `templates.ts` holds for one command: how to read an expanded URI back
 * into typed variables, and how to rebuild the command's argument list from them.
 */
export interface CommandTemplate<V = Record<string, unknown>> {
  name: string;
  uriTemplate: string;
  variables: readonly TemplateVariable[];
  /** Never throws: any string gives either typed variables or every field error. */
  parse(uri: string): ParseResult<V>;
  /** The handler's arguments, exactly as `tools/call` with the same values gives them. */
  args(vars: V): unknown[];
}

/**
 * `V` once its `undefined` values are dropped: keys that may hold `undefined` become optional
 * and never hold it; the others stay as they are.
 */
export type WithoutUndefined<V> = Simplify<
  { [K in keyof V as undefined extends V[K] ? never : K]: V[K] } & {
    [K in keyof V as undefined extends V[K] ? K : never]?: Exclude<V[K], undefined>;
  }
>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
