/** A type-only key: no value has it at runtime, so the brand costs nothing and cannot be faked by accident. */
declare const RESULT: unique symbol;

/**
 * A URI that carries, in its type only, what reading it returns: what a generated `uris.*`
 * builder returns (`uris.customers_show({ id })` is a `ResourceUri<CustomersShowResult>`). It is
 * a string at runtime and everywhere a string is expected; a plain string is not one, so a typed
 * read (`livecmd/client`) is only typed for a URI a builder made.
 */
export type ResourceUri<Result> = string & { readonly [RESULT]: Result };

/** What reading `Uri` returns: the type a `ResourceUri` carries, `unknown` for a plain string. */
export type ResultOf<Uri extends string> = Uri extends ResourceUri<infer Result> ? Result : unknown;
