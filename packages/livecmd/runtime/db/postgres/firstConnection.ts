import { connectionProblem } from "./connectionProblem.ts";
import type { PgPool } from "./pgLibrary.ts";

/** Connects once, to fail with one line that says what is wrong (`where`: the URL, password hidden). */
export async function firstConnection(pool: PgPool, where: string): Promise<void> {
  try {
    await pool.query({ text: "SELECT 1" });
  } catch (error) {
    throw new Error(connectionProblem(error as Error & { code?: string }, where), { cause: error });
  }
}
