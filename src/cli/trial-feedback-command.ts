import { UsageError } from "./usage-error";
import { CliTimeout, runWorkflow, type WorkflowContext, type WorkflowOptions } from "./workflow-cli";
import { commentPlace, type ReviewCommentView } from "../shared/review-comment-schemas";
import { trialName } from "../shared/domain-names";
import { describeVerdict } from "../shared/trial-outcome";
import { isTerminalTrialState } from "../shared/vocabulary";
import type { StudyView } from "../shared/study-schemas";

/**
 * `invariant-web trial comment|comments|follow-up`: review comments on a trial, and sending them back to its
 * agent as a follow-up attempt (tRPC review.addComment / review.comments / studies.continueWithFeedback).
 */

function oneTrial(context: WorkflowContext, example: string): string {
  const [trial, ...more] = context.config.workflow.trials;
  const positional = context.config.positionals[1];
  const id = trial ?? positional;
  if (!id || more.length > 0 || (trial && positional))
    throw new UsageError(`name one trial with --trial (its id, shown by invariant-web study show), e.g. ${example}`);
  return id;
}

/** "--lines 12" or "--lines 12-20" as the range. */
function linesOf(text: string | null): { startLine: number; endLine: number } | null {
  if (text === null) return null;
  const match = /^(\d{1,8})(?:-(\d{1,8}))?$/.exec(text.trim());
  if (!match)
    throw new UsageError(`--lines is a line or a range of lines, e.g. --lines 12 or --lines 12-20 (got "${text}").`);
  const startLine = Number(match[1]);
  const endLine = match[2] === undefined ? startLine : Number(match[2]);
  return { startLine, endLine };
}

function commentLine(comment: ReviewCommentView): string {
  const place = commentPlace(comment) ?? "(whole trial)";
  const sent = comment.sentInTrial ? ` [sent in trial ${comment.sentInTrial}]` : "";
  return `${comment.id}  ${place} — ${comment.body} (${comment.author})${sent}`;
}

function comment(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "trial comment", async (context) => {
    const example = 'invariant-web trial comment --trial TRIAL --body "…" [--path src/a.ts --lines 12-20]';
    const trialId = oneTrial(context, example);
    const { body, path, lines } = context.config.workflow.feedback;
    if (body === null) throw new UsageError(`write the comment with --body, e.g. ${example}`);
    const range = linesOf(lines);
    if (range && path === null)
      throw new UsageError(`--lines needs --path (the file the lines are in), e.g. ${example}`);
    const added = await (await context.api()).review.addComment.mutate({ trialId, body, path, ...(range ?? {}) });
    return {
      data: added,
      human: `Comment ${added.id} on trial ${trialId}: ${commentPlace(added) ?? "the whole trial"}.`,
    };
  });
}

function comments(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "trial comments", async (context) => {
    const trialId = oneTrial(context, "invariant-web trial comments --trial TRIAL");
    const { comments: list } = await (await context.api()).review.comments.query({ trialId });
    return {
      data: { trialId, comments: list },
      human: list.length === 0 ? `Trial ${trialId} has no review comments.` : list.map(commentLine).join("\n"),
    };
  });
}

/** Polls the study until every new follow-up has ended, within --timeout (null: no limit). */
async function waitForTrials(context: WorkflowContext, studyId: string, ids: string[]): Promise<StudyView> {
  const timeoutSec = context.config.workflow.timeoutSec;
  const deadline = timeoutSec === null ? Infinity : Date.now() + timeoutSec * 1000;
  const api = await context.api();
  for (;;) {
    const study = await api.studies.get.query({ studyId });
    const mine = study.trials.filter((trial) => ids.includes(trial.id));
    if (mine.every((trial) => isTerminalTrialState(trial.state))) return study;
    if (Date.now() > deadline)
      throw new CliTimeout(`The follow-ups had not ended after ${timeoutSec ?? 0} s; they go on in the dashboard.`);
    await new Promise((resolve) => setTimeout(resolve, context.pollMs));
  }
}

function followUp(options: WorkflowOptions): Promise<number> {
  return runWorkflow(options, "trial follow-up", async (context) => {
    const example = 'invariant-web trial follow-up --trial TRIAL [--trial TRIAL2 …] [--feedback "…"] [--wait]';
    const trialIds = context.config.workflow.trials;
    if (trialIds.length === 0) throw new UsageError(`name the trials to continue with --trial, e.g. ${example}`);
    const api = await context.api();
    const summaries = await Promise.all(trialIds.map((trialId) => api.review.summary.query({ trialId })));
    const studyIds = [...new Set(summaries.map((summary) => summary.studyId))];
    if (studyIds.length > 1 || !studyIds[0])
      throw new UsageError("--trial names trials of different studies: continue the trials of one study at a time.");
    const studyId = studyIds[0];
    const feedback = context.config.workflow.feedback.feedback;
    const result = await api.studies.continueWithFeedback.mutate({
      studyId,
      trialIds,
      ...(feedback === null ? {} : { feedback }),
    });
    const ids = result.trials.map((trial) => trial.id);
    const study = context.config.workflow.feedback.wait
      ? await waitForTrials(context, studyId, ids)
      : await api.studies.get.query({ studyId });
    const trials = result.trials.map(({ id, parentTrialId }) => {
      const view = study.trials.find((trial) => trial.id === id);
      return {
        id,
        parentTrialId,
        name: view ? trialName(view) : id,
        state: view?.state ?? "queued",
        verdict: view?.verdict ?? null,
      };
    });
    const parentName = (id: string) => {
      const parent = study.trials.find((trial) => trial.id === id);
      return parent ? trialName(parent) : id;
    };
    const human = trials
      .map(
        (trial) =>
          `${parentName(trial.parentTrialId)} → ${trial.name} (${trial.id}): ${trial.state}${trial.verdict ? `, ${describeVerdict(trial.verdict)}` : ""}`,
      )
      .join("\n");
    return { data: { studyId, trials }, human };
  });
}

export function runTrialFeedbackCommand(options: WorkflowOptions, action: string): Promise<number> {
  if (action === "comment") return comment(options);
  if (action === "comments") return comments(options);
  return followUp(options);
}
