import type { RuntimeReport } from "./dependency-schemas";

const NAMES: Record<RuntimeReport["runtime"], string> = { node: "Node.js", python: "Python", go: "Go" };

/** One line for the environment panel and the CLI: "Node.js 22.23.3 — from .nvmrc". */
export function describeRuntime(report: RuntimeReport): string {
  const name = NAMES[report.runtime];
  if (report.outcome === "present") return `${name} ${report.version}`;
  if (report.outcome === "unavailable")
    return report.version === "none"
      ? `${name} ${report.requested} asked for by ${report.source}: not in this environment`
      : `${name} ${report.version} — ${report.source} asks for ${report.requested}, which is not available offline`;
  return `${name} ${report.version} — from ${report.source}`;
}
