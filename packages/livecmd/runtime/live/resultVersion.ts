import { createHash } from "node:crypto";
import { FAILED } from "./lastResult.ts";

/**
 * The JSON text of what a command returned, as a read and a call send it (an absent result is
 * `null`): what live compares run to run, and what a version digests.
 */
export function resultText(result: unknown): string {
  return JSON.stringify(result ?? null);
}

/**
 * The version of a result: a digest of its JSON text (`resultText`), so that equal results have
 * one version on every replica and across restarts, and a client compares versions instead of
 * contents. SHA-256, 128 bits of it in base64url: two results never pass for one another.
 */
export function versionOf(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/**
 * The version a notification of a watched result carries: none when the run threw (reading the
 * URI now fails) or has not ended yet (`undefined`).
 */
export function notifiedVersion(text: string | undefined): string | undefined {
  return text === undefined || text === FAILED ? undefined : versionOf(text);
}
