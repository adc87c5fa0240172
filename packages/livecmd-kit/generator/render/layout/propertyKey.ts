import { stringLiteral } from "./stringLiteral.ts";

/** An ES5 identifier name: the property keys prettier prints without quotes (as-needed). */
const IDENTIFIER = /^[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$\u200c\u200d]*$/u;

/** A property key, of an object literal or an object type: quoted only when it is not an identifier. */
export function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : stringLiteral(key);
}
