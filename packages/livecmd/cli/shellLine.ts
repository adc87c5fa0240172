/** A command as a shell line that runs it as given: each word a shell would split or read, quoted. */
export function shellLine(command: readonly string[]): string {
  return command.map((word) => (/^[\w.~^@/=:+,-]+$/.test(word) ? word : `'${word}'`)).join(" ");
}
