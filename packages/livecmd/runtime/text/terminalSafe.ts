/**
 * Characters that a terminal acts on rather than shows: C0 and C1 controls (a newline would
 * start a forged line, ESC and CSI would move the cursor or recolour), DEL, the Unicode line
 * and paragraph separators and the bidirectional overrides (which reorder what is shown).
 */
const ACTED_ON = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every character a terminal acts on written as its `\uXXXX` escape. */
export function terminalSafe(text: string): string {
  return text.replace(
    ACTED_ON,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
