/**
 * A statement with `?` placeholders (the SQLite spelling commands use on both databases)
 * rewritten with PostgreSQL's `$1`, `$2`, ... A `?` inside a string, a quoted identifier, a
 * dollar-quoted body or a comment is left as it is, and so is a statement that already uses
 * `$n` (whose `?` are then jsonb operators).
 */
export function numberedPlaceholders(sql: string): string {
  const parts = splitQuoted(sql);
  if (parts.some(({ text, quoted }) => !quoted && /\$\d/.test(text))) return sql;
  let count = 0;
  return parts
    .map(({ text, quoted }) => (quoted ? text : text.replace(/\?/g, () => `$${(count += 1)}`)))
    .join("");
}

interface Part {
  text: string;
  /** Inside a string, quoted identifier, dollar-quoted body or comment. */
  quoted: boolean;
}

/** The statement cut into plain SQL and quoted parts; an unclosed quote runs to the end. */
function splitQuoted(sql: string): Part[] {
  const parts: Part[] = [];
  let plainFrom = 0;
  let index = 0;
  while (index < sql.length) {
    const end = quotedEnd(sql, index);
    if (end === undefined) {
      index += 1;
      continue;
    }
    parts.push({ text: sql.slice(plainFrom, index), quoted: false });
    parts.push({ text: sql.slice(index, end), quoted: true });
    index = plainFrom = end;
  }
  parts.push({ text: sql.slice(plainFrom), quoted: false });
  return parts;
}

/** Where the quoted part opening at `at` ends, or undefined when none opens there. */
function quotedEnd(sql: string, at: number): number | undefined {
  const rest = sql.slice(at);
  if (rest.startsWith("--")) return closeAfter(sql, at + 2, "\n");
  if (rest.startsWith("/*")) return closeAfter(sql, at + 2, "*/");
  const char = sql[at]!;
  if (char === '"') return doubledQuoteEnd(sql, at, '"');
  if (char === "'") {
    const escapes = /[Ee]$/.test(sql.slice(0, at)) && !/\w[Ee]$/.test(sql.slice(0, at));
    return escapes ? backslashStringEnd(sql, at) : doubledQuoteEnd(sql, at, "'");
  }
  const dollar = /^\$([A-Za-z_]\w*)?\$/.exec(rest);
  if (dollar && !/[\w$]$/.test(sql.slice(0, at)))
    return closeAfter(sql, at + dollar[0].length, dollar[0]);
  return undefined;
}

function closeAfter(sql: string, from: number, closer: string): number {
  const found = sql.indexOf(closer, from);
  return found === -1 ? sql.length : found + closer.length;
}

/** 'it''s' and "a""b": a doubled quote is the quote itself. */
function doubledQuoteEnd(sql: string, at: number, quote: string): number {
  for (let index = at + 1; index < sql.length; index += 1) {
    if (sql[index] !== quote) continue;
    if (sql[index + 1] === quote) index += 1;
    else return index + 1;
  }
  return sql.length;
}

/** E'it\'s': a backslash escapes the next character, and a doubled quote still counts. */
function backslashStringEnd(sql: string, at: number): number {
  for (let index = at + 1; index < sql.length; index += 1) {
    if (sql[index] === "\\") index += 1;
    else if (sql[index] === "'") {
      if (sql[index + 1] === "'") index += 1;
      else return index + 1;
    }
  }
  return sql.length;
}
