/**
 * A mistake in how the app is set up (a database URL that is not one), found while its module
 * loads: the CLI prints the message as one line and exits 2, as for a bad flag. Recognised by
 * name, since the app and the CLI may load two copies of livecmd.
 */
export class SetupError extends Error {
  override readonly name = "LivecmdSetupError";
}

export function isSetupError(error: unknown): error is Error {
  return error instanceof Error && error.name === "LivecmdSetupError";
}
