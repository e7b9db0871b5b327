import { reviewTranscriptInputSchema, reviewTrialInputSchema } from "../../../shared/review-schemas";
import { trialIdInputSchema, trialLogInputSchema } from "../../../shared/study-inputs";
import { MAX_PATCH_CHARS } from "./mcp-backend";
import { defineTool } from "./mcp-tool";

/** trial_show, trial_tests, trial_diff, trial_transcript, trial_log: one trial's result, read-only. */

const MAX_FILES = 2000;

export const trialShow = defineTool({
  name: "trial_show",
  title: "Show a trial",
  description:
    "A trial's review summary: its configuration, state, verdict (tests passed / total), integrity flags, tokens and time, and its changes' totals.",
  access: "read",
  input: reviewTrialInputSchema,
  run: async (input, { backend }) => ({ data: { trial: await backend.api.review.summary.query(input) } }),
});

export const trialTests = defineTool({
  name: "trial_tests",
  title: "A trial's test results",
  description: "Every test of a trial's evaluation with its result (passed, failed, skipped) and the baseline's.",
  access: "read",
  input: trialIdInputSchema,
  run: async (input, { backend }) => ({
    data: { trialId: input.trialId, tests: await backend.api.studies.trialTests.query(input) },
  }),
});

export const trialDiff = defineTool({
  name: "trial_diff",
  title: "A trial's changes",
  description:
    "The files a trial changed against the study's snapshot (status, insertions, deletions) and the whole change as one git patch (cut at 512 KiB).",
  access: "read",
  input: trialIdInputSchema,
  run: async ({ trialId }, { backend }) => {
    const [files, whole] = await Promise.all([
      backend.api.review.files.query({ trialId, limit: MAX_FILES }),
      backend.patch(trialId),
    ]);
    const truncated = whole.length > MAX_PATCH_CHARS;
    const patch = truncated ? whole.slice(0, MAX_PATCH_CHARS) : whole;
    return {
      data: {
        trialId,
        files: files.items.map((f) => ({
          path: f.path,
          status: f.status,
          binary: f.binary,
          insertions: f.insertions,
          deletions: f.deletions,
        })),
        patch,
        truncated,
      },
      text: patch ? `${patch}${truncated ? "\n… (cut at 512 KiB)" : ""}` : "(no changes)",
    };
  },
});

export const trialTranscript = defineTool({
  name: "trial_transcript",
  title: "A trial's transcript",
  description:
    "What the agent did in a trial: its messages, the commands it ran with their output, the files it changed.",
  access: "read",
  input: reviewTranscriptInputSchema,
  run: async (input, { backend }) => ({ data: { transcript: await backend.api.review.transcript.query(input) } }),
});

export const trialLog = defineTool({
  name: "trial_log",
  title: "A trial's log",
  description: "The end of a trial's log (agent and evaluation output), tailBytes long.",
  access: "read",
  input: trialLogInputSchema,
  run: async (input, { backend }) => {
    const log = await backend.api.studies.trialLog.query(input);
    return { data: { trialId: input.trialId, ...log }, text: log.text || "(empty log)" };
  },
});
