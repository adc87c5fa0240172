import { percentEncode } from "livecmd/internal";
import type { Operator, TemplatePart, VarSpec } from "./templateGrammar.ts";

/** RFC 6570 appendix A: how each operator joins and encodes what its variables expand to. */
const BEHAVIOUR: Record<
  Operator,
  { first: string; separator: string; named: boolean; ifEmpty: string; allowReserved: boolean }
> = {
  "": { first: "", separator: ",", named: false, ifEmpty: "", allowReserved: false },
  "+": { first: "", separator: ",", named: false, ifEmpty: "", allowReserved: true },
  "#": { first: "#", separator: ",", named: false, ifEmpty: "", allowReserved: true },
  ".": { first: ".", separator: ".", named: false, ifEmpty: "", allowReserved: false },
  "/": { first: "/", separator: "/", named: false, ifEmpty: "", allowReserved: false },
  ";": { first: ";", separator: ";", named: true, ifEmpty: "", allowReserved: false },
  "?": { first: "?", separator: "&", named: true, ifEmpty: "=", allowReserved: false },
  "&": { first: "&", separator: "&", named: true, ifEmpty: "=", allowReserved: false },
};

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;
const PCT_TRIPLET = /^%[0-9A-Fa-f]{2}/;

/**
 * The template expanded with string values (what a host fills in from a form), by RFC 6570
 * section 3. A variable without a value is undefined and expands to nothing; a string value
 * expands the same with or without explode.
 */
export function expandTemplate(
  parts: readonly TemplatePart[],
  values: ReadonlyMap<string, string>,
): string {
  let uri = "";
  for (const part of parts) {
    if ("literal" in part) uri += encode(part.literal, true);
    else uri += expandExpression(part.operator, part.variables, values);
  }
  return uri;
}

function expandExpression(
  operator: Operator,
  variables: readonly VarSpec[],
  values: ReadonlyMap<string, string>,
): string {
  const behaviour = BEHAVIOUR[operator];
  const expanded: string[] = [];
  for (const { name, prefix } of variables) {
    const value = values.get(name);
    if (value === undefined) continue;
    // A prefix counts characters (code points), not UTF-16 units or bytes.
    const text = encode(
      prefix === undefined ? value : [...value].slice(0, prefix).join(""),
      behaviour.allowReserved,
    );
    if (!behaviour.named) expanded.push(text);
    else expanded.push(value === "" ? `${name}${behaviour.ifEmpty}` : `${name}=${text}`);
  }
  return expanded.length === 0 ? "" : behaviour.first + expanded.join(behaviour.separator);
}

/**
 * Percent-encodes, as UTF-8, every character but the unreserved: the runtime's own encoder,
 * which its generated builders use; and, for `+` and `#`, the reserved and `%XX` triplets too.
 */
function encode(text: string, allowReserved: boolean): string {
  if (!allowReserved) return percentEncode(text);
  let out = "";
  for (let index = 0; index < text.length;) {
    if (PCT_TRIPLET.test(text.slice(index, index + 3))) {
      out += text.slice(index, index + 3);
      index += 3;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(index)!);
    if (UNRESERVED.test(char) || RESERVED.test(char)) out += char;
    else for (const byte of Buffer.from(char, "utf8")) out += `%${hex(byte)}`;
    index += char.length;
  }
  return out;
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, "0");
}
