import path from "node:path";
import { runAgent, type AgentRunDeps } from "../../src/server/core/agents/agent-run";
import { agentRunJob } from "../../src/server/core/jobs/agent-jobs";
import { isPathInside } from "../../src/shared/job-path-schemas";
import type { JobHandler } from "../job-handler";

type AgentRunData = Parameters<typeof runAgent>[1];

/**
 * A job's host paths must lie inside the worker's data dir (its workspaces, trials and snapshots):
 * the schema has already refused relative paths, `..` and NUL, so a plain prefix test is exact.
 * Checked before anything is written (the run creates its Codex home first).
 */
export function checkAgentRunPaths(data: AgentRunData, dataDir: string): void {
  const root = path.resolve(dataDir);
  const named = [
    { field: "workspacePath", value: data.workspacePath },
    { field: "codexHomePath", value: data.codexHomePath },
    ...(data.extraMounts ?? []).map((mount, index) => ({
      field: `extraMounts.${index}.hostPath`,
      value: mount.hostPath,
    })),
  ];
  for (const { field, value } of named) {
    if (!isPathInside(path.normalize(value), root))
      throw new Error(
        `agent.run job refused: ${field} ${JSON.stringify(value)} is outside this worker's data dir (${root}). Jobs name paths inside the data dir the web process and the worker share.`,
      );
  }
}

export function createAgentRunHandler(
  deps: AgentRunDeps,
  options: { dataDir: string },
): JobHandler<typeof agentRunJob.schema, typeof agentRunJob.result> {
  return {
    ...agentRunJob,
    handler: (data) => {
      checkAgentRunPaths(data, options.dataDir);
      return runAgent(deps, data);
    },
  };
}
