import { InputError } from "../inputError.ts";
import { connect, type Session } from "./connect.ts";
import { diagnoseEra } from "./diagnoseEra.ts";
import { ERAS, type Era } from "./eras.ts";
import { renderTable } from "./renderTable.ts";
import {
  ok,
  summarize,
  warn,
  type EraSummary,
  type Finding,
  type Report,
  type Step,
} from "./report.ts";
import { describeTarget, type Target } from "./target.ts";
import { refusal } from "./unauthorized.ts";

export interface DoctorOptions {
  target: Target;
  json: boolean;
  timeoutMs: number;
  write: (text: string) => void;
}

const NOT_SERVED_FIX: Record<Era["name"], string> = {
  "2026-07-28":
    "serve 2026-07-28 too, or hosts pinned to it cannot connect (in the TypeScript SDK: serveStdio or createMcpHandler; a plain connect() serves the 2025 era only)",
  "2025": "answer initialize too, or hosts of the 2025 era cannot connect",
};

/**
 * Examines the target on each era in turn and prints the report; the exit code is 1 when a
 * step fails. A target that serves neither era is bad input: there is nothing to examine.
 */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const { target, timeoutMs } = options;
  const eras: EraSummary[] = [];
  const steps: Step[] = [];
  for (const era of ERAS) {
    const connection = await connect(target, era, timeoutMs);
    if (!connection.served) {
      eras.push({ era: era.name, served: false, reason: connection.reason });
      steps.push(
        asStep(era, warn("connect", `not served: ${connection.reason}`, NOT_SERVED_FIX[era.name])),
      );
      continue;
    }
    const { session } = connection;
    try {
      eras.push(servedSummary(session));
      const findings = [connectFinding(session), ...(await diagnoseEra(session, timeoutMs))];
      steps.push(...findings.map((finding) => asStep(era, finding)));
    } finally {
      await session.close();
    }
  }
  if (eras.every((era) => !era.served)) {
    const refused = target.kind === "http" ? await refusal(target, timeoutMs) : undefined;
    if (refused) throw new InputError(`${describeTarget(target)}: ${refused}`);
    throw new InputError(
      `no MCP server answered at ${describeTarget(target)}: ${eras.map((era) => `${era.era}: ${era.reason}`).join("; ")}`,
    );
  }
  const report: Report = { target: describeTarget(target), eras, steps, summary: summarize(steps) };
  options.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderTable(report));
  return report.summary.fail > 0 ? 1 : 0;
}

/** The finding on one era, its keys in the order the report shows them. */
function asStep(era: Era, { step, status, detail, fix }: Finding): Step {
  return { step, era: era.name, status, detail, ...(fix !== undefined && { fix }) };
}

function servedSummary(session: Session): EraSummary {
  const server = session.client.getServerVersion();
  return {
    era: session.era.name,
    served: true,
    protocolVersion: session.client.getNegotiatedProtocolVersion() ?? "unknown",
    ...(server && { server: { name: server.name, version: server.version } }),
  };
}

function connectFinding(session: Session): Finding {
  const server = session.client.getServerVersion();
  const who = server ? `${server.name} ${server.version}` : "a server without serverInfo";
  return ok(
    "connect",
    `${session.era.handshake}: ${who}, protocol ${session.client.getNegotiatedProtocolVersion()}`,
  );
}
