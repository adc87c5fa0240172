import { startTasksServer } from "../../examples/fastify/server.ts";
import { describeMountedStack } from "../helpers/mountedStack.ts";
import { TASKS_STACK } from "../helpers/tasksStack.ts";

// The to-do app of examples/express, its endpoint mounted in Fastify in a scope of its own.
describeMountedStack({
  ...TASKS_STACK,
  name: "Fastify (examples/fastify)",
  start: (options) => startTasksServer({ port: 0, ...options }),
});
