import type { MountedStack } from "./mountedStack.ts";

/**
 * What a mounted stack of examples/express's to-do app is checked by, whichever server mounts
 * it (Express, Fastify): a task read, the open tasks watched, a write through its API and a tool.
 */
export const TASKS_STACK: Pick<
  MountedStack,
  "folder" | "read" | "watched" | "apiWrite" | "toolWrite"
> = {
  folder: "examples/express",
  read: {
    uri: "tasks://tasks_show/1",
    result: { id: 1, title: "Water the plants", done: false },
  },
  watched: "tasks://tasks_open",
  apiWrite: (root) =>
    fetch(new URL("/api/tasks", root), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Call the plumber" }),
    }),
  toolWrite: { name: "tasks_finish", arguments: { id: 2 } },
};
