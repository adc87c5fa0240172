import {
  FieldReader,
  splitUri,
  type JsonSchema,
  type ParseResult,
  type TemplateVariable,
} from "../../packages/livecmd/runtime/uri/index.ts";

/** A base without braces, `/{name}` path expressions, then at most one `{?a,b}` query expression. */
const TEMPLATE_SHAPE =
  /^([^{]*?)((?:\/\{[A-Za-z_]\w*\})*)(?:\{\?([A-Za-z_]\w*(?:,[A-Za-z_]\w*)*)\})?$/;

type Read = (reader: FieldReader, name: string, raw: string | undefined) => unknown;

interface Field {
  name: string;
  inPath: boolean;
  read: Read;
}

/**
 * The strict matcher a library without codegen would ship: it takes a template string and its
 * variables' schemas, takes the template apart once, then reads any URI by the same rules and
 * with the same primitives as the generated parsers, interpreting its parts at run time where
 * generated code has them written out. The honest middle between the SDK and generated code.
 */
export class GenericMatcher {
  private readonly base: string;
  private readonly pathNames: string[];
  private readonly queryNames: string[];
  private readonly fields: Field[];

  constructor(uriTemplate: string, variables: readonly TemplateVariable[]) {
    const parts = TEMPLATE_SHAPE.exec(uriTemplate);
    if (!parts)
      throw new Error(`unsupported template ${uriTemplate}: livecmd's are base/{a}/{b}{?c,d}`);
    this.base = parts[1]!;
    this.pathNames = [...parts[2]!.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    this.queryNames = parts[3] ? parts[3].split(",") : [];
    const schemas = new Map(variables.map((variable) => [variable.name, variable.schema]));
    const fieldOf = (name: string, inPath: boolean): Field => ({
      name,
      inPath,
      read: readerFor(name, schemas.get(name)),
    });
    this.fields = [
      ...this.pathNames.map((name) => fieldOf(name, true)),
      ...this.queryNames.map((name) => fieldOf(name, false)),
    ];
  }

  parse(uri: string): ParseResult<Record<string, unknown>> {
    const split = splitUri(uri, this.base, this.pathNames, this.queryNames);
    if (!split.parts) return split;
    const { path, query } = split.parts;
    const reader = new FieldReader(split.errors);
    const vars: Record<string, unknown> = {};
    for (const field of this.fields) {
      vars[field.name] = field.read(
        reader,
        field.name,
        field.inPath ? path[field.name] : query[field.name],
      );
    }
    return reader.result(vars);
  }
}

function readerFor(name: string, schema: JsonSchema | undefined): Read {
  if (!schema) throw new Error(`variable ${name} has no schema`);
  if (Array.isArray(schema.enum)) {
    const constants = schema.enum as string[];
    return (reader, field, raw) => reader.enum(field, raw, constants);
  }
  switch (schema.type) {
    case "integer":
      return (reader, field, raw) => reader.integer(field, raw);
    case "number":
      return (reader, field, raw) => reader.number(field, raw);
    case "boolean":
      return (reader, field, raw) => reader.boolean(field, raw);
    case "string":
      return (reader, field, raw) => reader.string(field, raw);
    default:
      throw new Error(`variable ${name}: no conversion for ${JSON.stringify(schema)}`);
  }
}
