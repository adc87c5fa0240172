import BetterSqlite3 from "better-sqlite3";
import { command, defineApp, int, type App, type Database, type Int } from "livecmd";
import catalog from "./generated/catalog.json" with { type: "json" };
import { templates } from "./generated/templates.ts";

export interface Task {
  id: Int;
  title: string;
  done: boolean;
}

/**
 * One task by id.
 * @param id The task's id, e.g. 1.
 */
export const tasks_show = command(
  { live: true, title: "Task" },
  async (ctx, id: Int): Promise<Task> => taskById(ctx.db, id),
);

/** The tasks not done yet, oldest first. */
export const tasks_open = command(
  { live: true, title: "Open tasks" },
  async (ctx): Promise<Task[]> =>
    (
      await ctx.db.all<{ id: Int; title: string }>(
        "SELECT id, title FROM tasks WHERE done = 0 ORDER BY id",
      )
    ).map((row) => ({ ...row, done: false })),
);

/**
 * Adds a task and returns it.
 * @param title What is to be done, e.g. "Water the plants".
 */
export const tasks_add = command({}, async (ctx, title: string): Promise<Task> => {
  const { lastInsertRowid } = await ctx.db.run("INSERT INTO tasks (title) VALUES (?)", title);
  return taskById(ctx.db, int(Number(lastInsertRowid)));
});

/**
 * Marks a task done and returns it; agents watching it, or the open tasks, are told.
 * @param id The task's id, e.g. 1.
 */
export const tasks_finish = command({}, async (ctx, id: Int): Promise<Task> => {
  await ctx.db.run("UPDATE tasks SET done = 1 WHERE id = ?", id);
  return taskById(ctx.db, id);
});

/** The to-do app, its data in the SQLite file at `databasePath` (`:memory:`: a fresh one). */
export function createTasksApp(databasePath: string): App {
  return defineApp({
    name: "tasks",
    commands: { tasks_show, tasks_open, tasks_add, tasks_finish },
    agent: { grant: [tasks_show, tasks_open, tasks_add, tasks_finish] },
    database: () => openTasks(databasePath),
    generated: { catalog, templates },
  });
}

async function taskById(db: Database, id: Int): Promise<Task> {
  const row = await db.get<{ id: Int; title: string; done: 0 | 1 }>(
    "SELECT id, title, done FROM tasks WHERE id = ?",
    id,
  );
  if (!row) throw new Error(`no task with id ${id}`);
  return { id: row.id, title: row.title, done: row.done === 1 };
}

function openTasks(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path);
  // The server and a script opening the file at once wait for each other.
  db.pragma("busy_timeout = 5000");
  db.exec(`
    CREATE TABLE IF NOT EXISTS tasks (
      id INTEGER PRIMARY KEY,
      title TEXT NOT NULL,
      done INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO tasks (title)
      SELECT title FROM (SELECT 'Water the plants' AS title UNION ALL SELECT 'Write the release notes' UNION ALL SELECT 'Book the train')
      WHERE NOT EXISTS (SELECT 1 FROM tasks);
  `);
  return db;
}
