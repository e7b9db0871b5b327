import { compareConfigurations } from "../../../shared/configuration-comparison";
import { aggregateByConfiguration } from "../../../shared/study-aggregates";
import {
  STUDY_REPORT_SCHEMA_ID,
  STUDY_REPORT_VERSION,
  type ReportTrial,
  type StudyReport,
} from "../../../shared/study-report";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import { buildTestMatrix, type TestMatrix } from "../../../shared/test-matrix";
import type { ModelPrice } from "../../../shared/model-prices";
import { studyCosts } from "../../../shared/study-costs";
import { verdictLevel } from "../../../shared/trial-outcome";
import { tokensWithTotal } from "../../../shared/token-usage";
import { renderCsvReport } from "../reports/report-csv";
import { reportFileName, type ReportFormat } from "../reports/report-filename";
import { renderJsonReport } from "../reports/report-json";
import { renderMarkdownReport } from "../reports/report-markdown";
import type { ReviewCommentView } from "../../../shared/review-comment-schemas";

/** The study's tests × trials matrix from its trials' per-test rows. */
export async function studyTestMatrix(
  studies: {
    studyTests(studyId: string): Promise<Map<string, { name: string; status: "passed" | "failed" | "skipped" }[]>>;
  },
  study: StudyView,
): Promise<TestMatrix> {
  return buildTestMatrix({ trials: study.trials, results: await studies.studyTests(study.id) });
}

/** A trial as the report records it, with its earlier attempts, its follow-up place and its review comments. */
function reportTrial(trial: TrialView, comments: readonly ReviewCommentView[]): ReportTrial {
  return {
    id: trial.id,
    choice: trial.choice,
    repeat: trial.repeat,
    parentTrialId: trial.parentTrialId,
    followUpPath: trial.followUpPath,
    number: trial.number,
    feedback: trial.feedback,
    comments: comments
      .filter((comment) => comment.trialId === trial.id)
      .map(({ path, startLine, endLine, body, author, createdAt, sentInTrial }) => ({
        path,
        startLine,
        endLine,
        body,
        author,
        createdAt,
        sentInTrial,
      })),
    attempt: trial.attempt,
    state: trial.state,
    outcome: trial.outcome,
    verdict: trial.verdict,
    verdictLevel: verdictLevel(trial.verdict),
    exitCode: trial.exitCode,
    agentSeconds: trial.agentSeconds,
    evalSeconds: trial.evalSeconds,
    tokens: tokensWithTotal({
      input: trial.tokens.input,
      cachedInput: trial.tokens.cachedInput,
      output: trial.tokens.output,
      reasoning: trial.tokens.reasoning,
    }),
    threadId: trial.threadId,
    harnessVersion: trial.harnessVersion,
    error: trial.error,
    capturedChanges: trial.capturedChanges,
    testSteering: trial.testSteering,
    testsMissing: trial.testsMissing,
    manifest: trial.manifest,
    startedAt: trial.startedAt,
    finishedAt: trial.finishedAt,
    earlierAttempts: trial.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      choice: attempt.choice,
      model: attempt.model,
      reasoningEffort: attempt.reasoningEffort,
      instructions: attempt.instructions,
      state: attempt.state,
      outcome: attempt.outcome,
      verdict: attempt.verdict,
      agentSeconds: attempt.agentSeconds,
      evalSeconds: attempt.evalSeconds,
      tokens: attempt.tokens,
      error: attempt.error,
      finishedAt: attempt.finishedAt,
    })),
  };
}

/** A study as the versioned report (src/shared/study-report.ts): what the downloads and `invariant-web export` render. */
export function buildStudyReport(options: {
  study: StudyView;
  testMatrix?: TestMatrix;
  prices?: readonly ModelPrice[];
  /** The review comments on the study's trials (none when not read). */
  comments?: readonly ReviewCommentView[];
  generatedAt: Date;
}): StudyReport {
  const { study } = options;
  const trials = study.trials.map((trial) => reportTrial(trial, options.comments ?? []));
  const configurations = study.configurations.map((configuration) => ({
    choice: configuration.choice,
    harness: configuration.harness,
    // a command line given no model is stored with the placeholder "(command)": the report says none
    model: configuration.harness === "command" && configuration.model === "(command)" ? "" : configuration.model,
    reasoningEffort: configuration.reasoningEffort,
    instructions: configuration.instructions,
    command: configuration.command,
    repeats: configuration.repeats,
    derivedFrom: configuration.derivedFrom,
    label: configuration.label,
  }));
  const aggregates = aggregateByConfiguration({ configurations, trials });
  return {
    schema: STUDY_REPORT_SCHEMA_ID,
    version: STUDY_REPORT_VERSION,
    generatedAt: options.generatedAt.toISOString(),
    study: {
      id: study.id,
      title: study.title,
      projectId: study.projectId,
      projectName: study.projectName,
      taskPrompt: study.taskPrompt,
      testCommand: study.testCommand,
      junitPath: study.junitPath,
      testFiles: study.testFiles,
      state: study.state,
      createdAt: study.createdAt,
      startedAt: study.startedAt,
      finishedAt: study.finishedAt,
      concurrency: study.concurrency,
      agentTimeoutSec: study.agentTimeoutSec,
      evalTimeoutSec: study.evalTimeoutSec,
      tokenBudget: study.tokenBudget,
    },
    environment: study.environment,
    snapshotId: study.snapshotId,
    baseline: study.baseline
      ? {
          passed: study.baseline.passed,
          failed: study.baseline.failed,
          skipped: study.baseline.skipped,
          total: study.baseline.total,
          source: study.baseline.source,
        }
      : null,
    configurations,
    trials,
    aggregates,
    comparisons: compareConfigurations(configurations, aggregates),
    ...(options.testMatrix ? { testMatrix: options.testMatrix } : {}),
    ...(options.prices
      ? { costs: studyCosts({ configurations, trials: study.trials, prices: options.prices }), budget: study.budget }
      : {}),
    chosen: study.chosen && trials.some((trial) => trial.id === study.chosen?.trialId) ? study.chosen : null,
  };
}

export const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  md: "text/markdown; charset=utf-8",
  json: "application/json; charset=utf-8",
  csv: "text/csv; charset=utf-8",
};

/** The report in one format, with its file name. */
export function renderStudyReport(options: {
  study: StudyView;
  testMatrix?: TestMatrix;
  prices?: readonly ModelPrice[];
  comments?: readonly ReviewCommentView[];
  format: ReportFormat;
  generatedAt: Date;
}): {
  fileName: string;
  contentType: string;
  body: string;
} {
  const report = buildStudyReport(options);
  const body =
    options.format === "md"
      ? renderMarkdownReport(report)
      : options.format === "json"
        ? renderJsonReport(report)
        : renderCsvReport(report);
  return {
    fileName: reportFileName({ report, format: options.format }),
    contentType: REPORT_CONTENT_TYPES[options.format],
    body,
  };
}
