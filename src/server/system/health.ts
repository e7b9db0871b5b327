import type { HealthReport, SupervisedProcess } from "../../shared/system-health";

/** The launcher's view of the children it keeps running (empty for a web process without one). */
export type SupervisionSource = () => SupervisedProcess[];

const LABELS: Record<SupervisedProcess["name"], string> = { redis: "The private Redis", worker: "The worker" };

/** A sentence per supervised child that is not simply running. */
function supervisionProblems(processes: SupervisedProcess[]): string[] {
  return processes.flatMap((child) => {
    const label = LABELS[child.name];
    const last = child.lastExit ? ` (${child.lastExit})` : "";
    if (child.state === "failing")
      return [
        `${label} keeps exiting${last}: ${child.restarts} restarts have not held. invariant-web keeps restarting it every 30 s; its log says why.`,
      ];
    if (child.state === "restarting") return [`${label} exited${last} and is being restarted.`];
    return [];
  });
}

/** The health report: `degraded` with the problems when anything is wrong. */
export function buildHealth(options: { supervision: SupervisedProcess[] }): HealthReport {
  const problems = supervisionProblems(options.supervision);
  return { status: problems.length > 0 ? "degraded" : "ok", problems, supervision: options.supervision };
}
