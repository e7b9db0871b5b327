"use client";
import { Fact, Panel } from "../_components/ui";
import { useHealth } from "../_components/system-health";

const NAMES = { redis: "Private Redis", worker: "Worker child" } as const;

/** What /api/health says: Redis, workers online, the recorder's backlog, and the launcher's restarts. */
export function HealthPanel() {
  const health = useHealth();
  const report = health.data;
  return (
    <Panel title="Health">
      {report ? (
        <div className="grid gap-3 text-sm" data-testid="health-panel">
          <p>
            <strong className={report.status === "ok" ? "text-ok" : "text-warn-ink"}>
              {report.status === "ok" ? "Everything is running." : "Degraded."}
            </strong>{" "}
            {report.problems.join(" ")}
          </p>
          <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
            <Fact label="Redis">{report.redis.reachable ? "reachable" : "not reachable"}</Fact>
            <Fact label="Workers online">{report.workers.online ?? "unknown"}</Fact>
            <Fact label="Events not yet recorded">
              {report.recorder.lag === null ? "unknown" : report.recorder.lag + (report.recorder.pending ?? 0)}
            </Fact>
            {report.supervision.map((child) => (
              <Fact key={child.name} label={NAMES[child.name]}>
                {child.state}, {child.restarts} {child.restarts === 1 ? "restart" : "restarts"}
                {child.lastExit ? ` (last: ${child.lastExit})` : ""}
              </Fact>
            ))}
          </div>
        </div>
      ) : (
        <p className="text-sm text-muted">{health.isError ? "Health could not be read." : "Checking…"}</p>
      )}
    </Panel>
  );
}
