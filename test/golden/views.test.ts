import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { listings, type Catalog } from "../../packages/livecmd/runtime/model/catalog.ts";
import { viewPage } from "../../packages/livecmd/runtime/view/viewPage.ts";
import { assertGoldenFiles } from "../helpers/golden.ts";

const fixture = path.resolve(import.meta.dirname, "../fixtures/views");
/** Stands for the bundled view runtime, which is the same in every page (and 650 kB). */
const RUNTIME = "/* the livecmd view runtime */";

/**
 * The view resources a server makes of the `views` fixture's catalog (the codegen golden test
 * holds the catalog itself): their listings and links, and each page, the runtime elided.
 */
test("fixture views: the served view resources match served/ byte for byte", async () => {
  const catalog = JSON.parse(
    await readFile(path.join(fixture, "expected/catalog.json"), "utf8"),
  ) as Catalog;
  const listed = listings(catalog.commands, () => true, catalog.watchTool);
  const served = new Map([
    [
      "listings.json",
      `${JSON.stringify(
        {
          resources: listed.resources.filter((entry) => entry.uri.startsWith("ui://")),
          toolLinks: listed.tools.flatMap((tool) => (tool._meta ? [[tool.name, tool._meta]] : [])),
        },
        null,
        2,
      )}\n`,
    ],
  ]);
  for (const entry of catalog.commands)
    if (entry.view) served.set(`${entry.name}.html`, viewPage(entry, "watch_resources", RUNTIME));
  await assertGoldenFiles(path.join(fixture, "served"), served);
});
