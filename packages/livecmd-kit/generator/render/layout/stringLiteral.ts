/**
 * A string as the TypeScript literal prettier prints for it: double quotes unless the text holds
 * more double quotes than single ones, only the enclosing quote escaped, and JSON's escapes
 * for everything else (JSON's escaping is valid TypeScript and prettier keeps it).
 */
export function stringLiteral(value: string): string {
  if (!value.includes('"')) return JSON.stringify(value);
  const escaped = JSON.stringify(value).slice(1, -1);
  const doubles = count(escaped, '"');
  const singles = count(escaped, "'");
  if (doubles <= singles) return `"${escaped}"`;
  // JSON escaped every `"`; in single quotes those escapes go and every `'` gets one.
  return `'${escaped.replace(/\\(.)|'/gs, (match, escapedCharacter: string | undefined) => (escapedCharacter === undefined ? "\\'" : escapedCharacter === '"' ? '"' : match))}'`;
}

function count(text: string, character: string): number {
  let found = 0;
  for (
    let index = text.indexOf(character);
    index !== -1;
    index = text.indexOf(character, index + 1)
  )
    found++;
  return found;
}
