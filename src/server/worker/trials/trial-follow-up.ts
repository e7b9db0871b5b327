import fsp from "node:fs/promises";
import type { FollowUpSource } from "../../core/jobs/study-jobs";
import { dataDirPaths } from "../../core/storage/data-dir";
import { copyWorkspace, type WorkspaceInfo } from "../../core/workspaces/workspace-store";
import type { TrialContext } from "./trial-context";

/**
 * A follow-up attempt's start (review feedback sent back to the agent): a copy of its parent's workspace
 * (the parent's stays exactly as it was: its diff, review and apply do not move), and a copy of the parent's
 * agent home as this attempt's, so the CLI's resume finds the conversation where it looks for it
 * (Codex: sessions/…/rollout-<thread>.jsonl; Claude Code: projects/-workspace/<session>.jsonl; Gemini CLI:
 * .gemini/tmp/<project>/chats). The agent then runs in the parent's committed result image.
 */
export async function prepareFollowUp(options: {
  context: TrialContext;
  followUp: FollowUpSource;
}): Promise<WorkspaceInfo> {
  const { context, followUp } = options;
  const { deps } = context;
  // the parent's workspace, agent home and result image are on the dashboard's host (delivered there)
  if (deps.artifacts?.imageLocation)
    throw new Error(
      `A follow-up continues its parent trial's workspace and result image, which are on the dashboard's host; this worker (${deps.artifacts.imageLocation.host}) is on another host. Run a worker on the dashboard's host for follow-ups.`,
    );
  const workspace = await copyWorkspace({ dataDir: deps.dataDir, workspaceId: followUp.parentWorkspaceId });
  const parentHome = dataDirPaths(deps.dataDir).trialAttempt({
    trialId: followUp.parentTrialId,
    attempt: followUp.parentAttempt,
  }).codexHome;
  await fsp.mkdir(context.files.codexHome, { recursive: true, mode: 0o700 });
  await fsp
    .cp(parentHome, context.files.codexHome, { recursive: true, force: false, verbatimSymlinks: true })
    .catch((error: unknown) => {
      // a command harness keeps no home; an agent's conversation that is gone fails at its resume, saying so
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    });
  context.note(
    `Follow-up of trial ${followUp.parentTrialId}: copied its workspace ${followUp.parentWorkspaceId} and agent home${followUp.resumeThreadId ? `; resuming conversation ${followUp.resumeThreadId}` : ""}`,
  );
  return workspace;
}
