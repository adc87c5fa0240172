/**
 * Text for a message or a log line: at most `max` characters of it, and its length when cut.
 * A URI or an error can carry a whole request; repeating it would let one client flood the
 * answer or the log.
 */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** A URI in a message: enough of it to recognise, its length when cut. */
export function shortened(uri: string): string {
  return cutText(uri, 200);
}
