import { startBookmarksServer } from "../../examples/hono/server.ts";
import { describeMountedStack } from "../helpers/mountedStack.ts";

describeMountedStack({
  name: "Hono on @hono/node-server (examples/hono)",
  folder: "examples/hono",
  start: (options) => startBookmarksServer({ port: 0, ...options }),
  read: {
    uri: "bookmarks://bookmarks_show/1",
    result: {
      id: 1,
      url: "https://modelcontextprotocol.io",
      title: "Model Context Protocol",
      tag: "reading",
    },
  },
  watched: "bookmarks://bookmarks_tagged/reading",
  apiWrite: (root) =>
    fetch(new URL("/api/bookmarks", root), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "https://hono.dev", title: "Hono", tag: "reading" }),
    }),
  toolWrite: { name: "bookmarks_retag", arguments: { id: 1, tag: "read" } },
});
