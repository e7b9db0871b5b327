import { runAgent, type AgentRunDeps } from "../../src/server/agents/agent-run";
import { agentRunJob } from "../../src/server/jobs/agent-jobs";
import type { JobHandler } from "../job-handler";

export function createAgentRunHandler(
  deps: AgentRunDeps,
): JobHandler<typeof agentRunJob.schema, typeof agentRunJob.result> {
  return { ...agentRunJob, handler: (data) => runAgent(deps, data) };
}
