/**
 * livecmd-kit/cli: the dev tool's commands, which the `livecmd` binary runs (`npx livecmd
 * codegen`) when the project has this package, of livecmd's own version.
 */
import type { CommandModule } from "yargs";
import { codegenCommand } from "./codegenCommand.ts";
import { initCommand } from "./initCommand.ts";
import { inspectCommand } from "./inspectCommand.ts";

// Typed as yargs takes them: each command's own arguments stay its own.
export const commands = [initCommand, codegenCommand, inspectCommand] as CommandModule[];
