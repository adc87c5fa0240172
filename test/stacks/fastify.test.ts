import { startTasksServer } from "../../examples/fastify/server.ts";
import { describeMountedStack } from "../helpers/mountedStack.ts";

// The to-do app of examples/express, its endpoint mounted in Fastify in a scope of its own.
describeMountedStack({
  name: "Fastify (examples/fastify)",
  folder: "examples/express",
  start: (options) => startTasksServer({ port: 0, ...options }),
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
});
