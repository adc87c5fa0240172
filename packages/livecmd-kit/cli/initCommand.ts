import type { CommandModule } from "yargs";
import { initProject } from "./init/initProject.ts";

interface InitArguments {
  install: boolean;
}

/**
 * The MCP Inspector as livecmd's own tests run it: the version test/peers/package.json pins (an
 * unpinned npx may pick an old major; test/adopter/init.test.ts holds the two equal), and `-y`, so
 * that the command runs as printed without a terminal to confirm.
 */
const INSPECTOR_COMMAND = "npx -y @modelcontextprotocol/inspector@2.12.0";

/** `livecmd init`: a starter app, in an empty folder or an existing project. */
export const initCommand: CommandModule<object, InitArguments> = {
  command: "init",
  describe:
    "Start an app here: src/app.ts (one live command over a SQLite table), scripts, a tsconfig, its packages and its generated files",
  builder: (argv) =>
    argv.option("install", {
      type: "boolean",
      default: true,
      describe:
        "Install the packages the app needs with the project's package manager, npm or pnpm (--no-install prints the commands)",
    }),
  handler: async (argv) => {
    const log = (text: string) => process.stdout.write(`${text}\n`);
    const { scheme } = await initProject({ cwd: process.cwd(), install: argv.install, log });
    log(`
Your app serves ${scheme}://notes_show/{id}. Next, list its templates and read note 1 as an agent would:

  ${INSPECTOR_COMMAND} --cli npx livecmd serve --method resources/templates/list
  ${INSPECTOR_COMMAND} --cli npx livecmd serve --method resources/read --uri ${scheme}://notes_show/1

Over HTTP: \`npx livecmd serve --http 3000\` serves http://127.0.0.1:3000/mcp. In production, compile (\`npx tsc\`) and serve the JavaScript with plain Node: \`npx livecmd serve --app dist/app.js\`.`);
  },
};
