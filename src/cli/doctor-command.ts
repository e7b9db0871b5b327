import { runDoctor, type DoctorReport } from "../server/core/diagnostics/doctor";
import { createDockerRuntime } from "../server/core/runtime/docker-runtime";
import type { CliConfig } from "./config";
import { formatModelAccess, providerAccessOf } from "./model-access-output";

export function formatDoctorReport(report: DoctorReport): string {
  const mark = { ok: "✓", warn: "!", fail: "✗" } as const;
  const lines = report.checks.map((check) => {
    const head = `${mark[check.status]} ${check.title.padEnd(16)} ${check.detail}`;
    return check.fix ? `${head}\n    fix: ${check.fix}` : head;
  });
  lines.push("", report.ok ? "All required checks passed." : "Some required checks failed; see the fixes above.");
  return `${lines.join("\n")}\n`;
}

/**
 * `invariant-web doctor [--json]`: exit code 1 when a required check fails. Model access per provider
 * follows the checks (JSON: `modelAccess`), informational: the demo runs on the scripted model without any.
 */
export async function runDoctorCommand(config: CliConfig): Promise<number> {
  const report = await runDoctor({
    runtime: createDockerRuntime(),
    dataDir: config.dataDir,
    redisUrl: config.redisUrl,
    hostCa: config.hostCa,
  });
  const modelAccess = providerAccessOf(config);
  process.stdout.write(
    config.json
      ? `${JSON.stringify({ ...report, modelAccess }, null, 2)}\n`
      : `${formatDoctorReport(report)}\nModel access:\n${formatModelAccess(modelAccess)}`,
  );
  return report.ok ? 0 : 1;
}
