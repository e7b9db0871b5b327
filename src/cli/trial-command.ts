import { UsageError } from "./usage-error";
import { downloadText } from "./dashboard-download";
import { onePositional, runWorkflow, usageFailure, type WorkflowOptions } from "./workflow-cli";

/**
 * `invariant-web trial log|diff TRIAL`: a trial's log and its changes, through the dashboard's API; `trial
 * comment|comments|follow-up`: review comments and follow-ups (trial-feedback-command.ts).
 */

const MAX_FILES = 2000;

function trialId(options: WorkflowOptions, example: string): string {
  const id = onePositional(options.config, "trial", example);
  if (!id) throw new UsageError(`name a trial (its id, shown by invariant-web study show), e.g. ${example}`);
  return id;
}

export async function runTrialCommand(options: WorkflowOptions): Promise<number> {
  const action = options.config.positionals[0];
  if (action === "comment" || action === "comments" || action === "follow-up")
    return (await import("./trial-feedback-command")).runTrialFeedbackCommand(options, action);
  if (action === "log")
    return runWorkflow(options, "trial log", async (context) => {
      const id = trialId(options, "invariant-web trial log TRIAL [--tail BYTES]");
      const tailBytes = context.config.workflow.tailBytes ?? 64 * 1024;
      if (tailBytes < 1 || tailBytes > 4 * 1024 * 1024) throw new UsageError("--tail is 1..4194304 bytes.");
      const log = await (await context.api()).studies.trialLog.query({ trialId: id, tailBytes });
      return {
        data: { trialId: id, text: log.text, truncated: log.truncated },
        human: `${log.truncated ? `… (the last ${tailBytes} bytes)\n` : ""}${log.text}`,
      };
    });
  if (action === "diff")
    return runWorkflow(options, "trial diff", async (context) => {
      const id = trialId(options, "invariant-web trial diff TRIAL");
      const api = await context.api();
      const [summary, files, patch] = await Promise.all([
        api.review.summary.query({ trialId: id }),
        api.review.files.query({ trialId: id, limit: MAX_FILES }),
        downloadText({
          context,
          pathname: `/api/trials/${encodeURIComponent(id)}/patch`,
          notFound: `Trial ${id} has no changes to show yet.`,
        }),
      ]);
      return {
        data: {
          trialId: id,
          studyId: summary.studyId,
          totals: summary.totals,
          files: files.items.map((item) => ({
            path: item.path,
            status: item.status,
            binary: item.binary,
            insertions: item.insertions,
            deletions: item.deletions,
          })),
          patch,
        },
        human: patch || "(no changes)",
      };
    });
  return usageFailure(
    options,
    "trial",
    'use "log", "diff", "comment", "comments" or "follow-up", e.g. invariant-web trial diff TRIAL',
  );
}
