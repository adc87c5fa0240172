import type { EraName } from "./eras.ts";

export type Status = "ok" | "warn" | "fail";

/** What one step of a host's discovery found; a warn or fail says how to fix it in `fix`. */
export interface Finding {
  step: string;
  status: Status;
  detail: string;
  fix?: string;
}

export interface Step extends Finding {
  era: EraName;
}

export interface EraSummary {
  era: EraName;
  served: boolean;
  /** The negotiated version, when served. */
  protocolVersion?: string;
  server?: { name: string; version: string };
  /** Why the era is not served. */
  reason?: string;
}

/** The whole run, as `--json` prints it. */
export interface Report {
  target: string;
  eras: EraSummary[];
  steps: Step[];
  summary: Record<Status, number>;
}

export function ok(step: string, detail: string): Finding {
  return { step, status: "ok", detail };
}

export function warn(step: string, detail: string, fix: string): Finding {
  return { step, status: "warn", detail, fix };
}

export function fail(step: string, detail: string, fix: string): Finding {
  return { step, status: "fail", detail, fix };
}

export function summarize(steps: readonly Step[]): Record<Status, number> {
  const summary: Record<Status, number> = { ok: 0, warn: 0, fail: 0 };
  for (const { status } of steps) summary[status]++;
  return summary;
}
