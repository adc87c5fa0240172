export type {
  CommandTemplate,
  FieldError,
  JsonSchema,
  ParseResult,
  TemplateVariable,
  WithoutUndefined,
} from "./template.ts";
export { MAX_URI_LENGTH } from "./uriLength.ts";
export { splitUri, type SplitResult, type UriParts } from "./splitUri.ts";
export { FieldReader } from "./fieldReader.ts";
export { formQuery, formatScalar, pathSegment, type ScalarValue } from "./expand.ts";
export { commandOf } from "./commandOf.ts";
export { pickDefined, pickDefinedOrUndefined } from "./pickDefined.ts";
export { UriCursor } from "./uriCursor.ts";
export { int, type Int } from "./int.ts";
export type { ResourceUri, ResultOf } from "./resourceUri.ts";
