/**
 * An RFC 6570 URI Template (section 2, levels 1 to 4), read strictly. No library on npm
 * validates one: the expanders (url-template, std-uritemplate, the MCP SDK's UriTemplate)
 * copy whatever literal text they are given, and accept some broken expressions.
 */

export type Operator = "" | "+" | "#" | "." | "/" | ";" | "?" | "&";

export interface VarSpec {
  name: string;
  /** `{var:3}`: the first 3 characters of the value. */
  prefix?: number;
  /** `{var*}` */
  explode: boolean;
}

export type TemplatePart = { literal: string } | { operator: Operator; variables: VarSpec[] };

export type ParsedTemplate =
  { ok: true; parts: TemplatePart[] } | { ok: false; index: number; message: string };

const OPERATORS = new Set<string>(["+", "#", ".", "/", ";", "?", "&"]);
/** `op-reserve`: in the grammar, but kept for future extensions, so no expander knows them. */
const RESERVED_OPERATORS = new Set<string>(["=", ",", "!", "@", "|"]);
const VARCHAR = "(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})";
const VARSPEC = new RegExp(`^(${VARCHAR}+(?:\\.${VARCHAR}+)*)(?::([1-9][0-9]{0,3})|(\\*))?$`);
const PCT_ENCODED = /^%[0-9A-Fa-f]{2}/;

export function parseTemplate(template: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let literal = "";
  for (let index = 0; index < template.length;) {
    const char = template[index]!;
    if (char === "{") {
      const close = template.indexOf("}", index);
      const expression = close < 0 ? undefined : template.slice(index + 1, close);
      if (expression === undefined || expression.includes("{")) {
        return { ok: false, index, message: `has a "{" at position ${index} that is never closed` };
      }
      const parsed = parseExpression(expression, index);
      if ("message" in parsed) return { ok: false, ...parsed };
      if (literal !== "") parts.push({ literal });
      literal = "";
      parts.push(parsed);
      index = close + 1;
      continue;
    }
    const length = literalLength(template, index);
    if (length === 0) return { ok: false, index, message: literalMessage(template, index) };
    literal += template.slice(index, index + length);
    index += length;
  }
  if (literal !== "") parts.push({ literal });
  return { ok: true, parts };
}

/** The names of the template's variables, each once, in the order they first appear. */
export function templateVariables(parts: readonly TemplatePart[]): string[] {
  const names = new Set<string>();
  for (const part of parts)
    if ("variables" in part) for (const { name } of part.variables) names.add(name);
  return [...names];
}

/**
 * The lowest RFC 6570 level an expander must support to expand the template (section 1.2):
 * 1 for `{var}`, 2 for `{+var}` and `{#var}`, 3 for several variables or the other operators,
 * 4 for prefixes and explodes.
 */
export function templateLevel(parts: readonly TemplatePart[]): 1 | 2 | 3 | 4 {
  let level: 1 | 2 | 3 | 4 = 1;
  for (const part of parts) {
    if (!("variables" in part)) continue;
    if (part.variables.some((spec) => spec.explode || spec.prefix !== undefined)) return 4;
    if (part.variables.length > 1 || !["", "+", "#"].includes(part.operator)) level = 3;
    else if (part.operator !== "" && level < 2) level = 2;
  }
  return level;
}

function parseExpression(
  body: string,
  at: number,
): { operator: Operator; variables: VarSpec[] } | { index: number; message: string } {
  const first = body[0] ?? "";
  if (RESERVED_OPERATORS.has(first)) {
    return {
      index: at + 1,
      message: `uses the operator "${first}" at position ${at + 1}, which RFC 6570 reserves for future use`,
    };
  }
  const operator = (OPERATORS.has(first) ? first : "") as Operator;
  const variables: VarSpec[] = [];
  let offset = at + 1 + operator.length;
  for (const varspec of body.slice(operator.length).split(",")) {
    const match = VARSPEC.exec(varspec);
    if (!match) {
      return {
        index: offset,
        message: `has ${JSON.stringify(varspec)} at position ${offset}, which is not a variable name (letters, digits, "_", %XX and inner dots) with an optional :1-9999 or *`,
      };
    }
    variables.push({
      name: match[1]!,
      explode: match[3] !== undefined,
      ...(match[2] !== undefined && { prefix: Number(match[2]) }),
    });
    offset += varspec.length + 1;
  }
  return { operator, variables };
}

/**
 * How many code units of literal text start at `index` (0: not a literal). Section 2.1 allows
 * every ASCII character but controls, space and `"%'<>\^`{|}`, plus pct-encoded triplets and
 * the non-ASCII `ucschar`/`iprivate` ranges. The apostrophe is accepted although section 2.1
 * leaves it out: it is a sub-delimiter of RFC 3986, the RFC 6570 test suite's own examples use
 * it as a literal, and expanders copy it unchanged.
 */
function literalLength(template: string, index: number): number {
  if (PCT_ENCODED.test(template.slice(index, index + 3))) return 3;
  const code = template.codePointAt(index)!;
  if (code < 0x80) return /[!#$&'()*+,\-./0-9:;=?@A-Z[\]_a-z~]/.test(template[index]!) ? 1 : 0;
  return isUcsCharOrPrivate(code) ? (code > 0xffff ? 2 : 1) : 0;
}

/** RFC 3987's `ucschar` and `iprivate`, which RFC 6570 literals may hold. */
function isUcsCharOrPrivate(code: number): boolean {
  if ((code >= 0xa0 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfdcf)) return true;
  if (code >= 0xfdf0 && code <= 0xffef) return true;
  // Planes 1 to 16, less each plane's last two code points (noncharacters) and the start of
  // plane 14 (tags and variation selectors).
  if (code >= 0xe0000 && code <= 0xe0fff) return false;
  return code >= 0x10000 && code <= 0x10fffd && (code & 0xfffe) !== 0xfffe;
}

function literalMessage(template: string, index: number): string {
  const char = String.fromCodePoint(template.codePointAt(index)!);
  if (char === "}") return `has a "}" at position ${index} that closes no expression`;
  if (char === "%") return `has "%" at position ${index} without two hex digits after it`;
  return `has ${JSON.stringify(char)} at position ${index}, which a template's literal text does not allow (percent-encode it)`;
}
