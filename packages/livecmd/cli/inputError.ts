/**
 * A problem with what the user gave the CLI (a flag, a config file, a path, an app that cannot
 * load): printed as one line, without a stack or the help, and the CLI exits 2.
 */
export class InputError extends Error {}
