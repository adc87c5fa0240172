/** What is left to write: a value (an object's member with its key), or punctuation. */
type Part = { value: unknown; key?: string } | { text: string };

/**
 * The JSON text of a body a framework parsed before the endpoint got it (`express.json()`,
 * Fastify's), for the endpoint to read as it reads every body. `JSON.stringify` recurses, and
 * runs out of stack on a body nested some thousands deep, which the parser took (`JSON.parse`
 * does not recurse) and an endpoint that reads the body itself takes too: such a body is
 * written level by level instead, so that it is answered as it would be unparsed.
 */
export function parsedBodyText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return levelByLevel(body);
  }
}

/**
 * `JSON.stringify(value)` of a value a JSON parser made (objects, arrays, strings, numbers,
 * booleans, null), without recursing: from a stack of what is left to write.
 */
function levelByLevel(value: unknown): string {
  let text = "";
  const left: Part[] = [{ value }];
  for (let part = left.pop(); part !== undefined; part = left.pop()) {
    if ("text" in part) {
      text += part.text;
      continue;
    }
    if (part.key !== undefined) text += `${JSON.stringify(part.key)}:`;
    const written = part.value;
    if (Array.isArray(written)) {
      text += "[";
      pushMembers(
        left,
        written.map((item: unknown) => ({ value: item })),
        "]",
      );
    } else if (typeof written === "object" && written !== null) {
      text += "{";
      const members = Object.entries(written).map(([key, item]) => ({ value: item, key }));
      pushMembers(left, members, "}");
    } else {
      text += JSON.stringify(written);
    }
  }
  return text;
}

/** Pushes `members`, comma-separated, then `close`, so that they are popped in order. */
function pushMembers(left: Part[], members: readonly Part[], close: string): void {
  left.push({ text: close });
  for (let at = members.length - 1; at >= 0; at--) {
    left.push(members[at]!);
    if (at > 0) left.push({ text: "," });
  }
}
