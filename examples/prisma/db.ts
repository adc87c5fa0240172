import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { prisma } from "livecmd";
import { PrismaClient } from "./client/client.ts";

/**
 * Prisma's adapter for better-sqlite3 at `NOTES_DB` (a fresh database in memory when unset),
 * made with livecmd's `prisma(...)`: it connects once, and Prisma and livecmd share that
 * connection, so every statement Prisma runs in a command is watched row by row.
 */
export const adapter = prisma(new PrismaBetterSqlite3({ url: process.env.NOTES_DB ?? ":memory:" }));

export const db = new PrismaClient({ adapter });

// `prisma migrate` needs Prisma's schema engine, a binary it downloads: the tables are made here.
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS authors (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, author_id INTEGER NOT NULL REFERENCES authors(id),
                                     title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '')`,
  `CREATE INDEX IF NOT EXISTS notes_author_id_idx ON notes (author_id)`,
];
for (const statement of SCHEMA) await db.$executeRawUnsafe(statement);
