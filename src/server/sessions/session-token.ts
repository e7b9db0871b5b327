import { runPolicy } from "../agents/run-policy";
import type { SessionDeps } from "./session-deps";
import { sessionRunId } from "./session-start";
import type { SessionRecord } from "./sessions.queries";

/**
 * The gateway takes a session's recorded token again (after a restart, its container still holds it; after
 * a resume on another network, with that network's policy): its budget and hosted-tools policy follow
 * the project and the network the container is on.
 */
export async function issueSessionToken(deps: SessionDeps, record: SessionRecord): Promise<void> {
  if (!record.runToken) return;
  const gateway = await deps.gateway();
  const project = await deps.projects.findById(record.projectId);
  gateway.gateway.issueRunToken({
    runId: sessionRunId(record.id),
    token: record.runToken,
    budgetTokens: project?.runTokenBudget ?? null,
    policy: runPolicy({
      harness: { kind: "codex", model: record.model ?? "", reasoningEffort: "medium", instructions: "", overrides: [] },
      network: record.network,
      allowHostedTools: project?.allowHostedTools ?? false,
    }),
  });
}
