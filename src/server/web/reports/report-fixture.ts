import { aggregateByConfiguration } from "../../../shared/study-aggregates";
import type { ReportTrial, StudyReport } from "../../../shared/study-report";
import { tokensWithTotal } from "../../../shared/token-usage";
import type { VerdictView } from "../../../shared/verdict-summary";

/**
 * A hand-built report for the tests and the example in docs/reports.md: three configurations (the
 * second ran three times, its last trial on a second attempt), text that tries to break Markdown, CSV
 * and HTML, a missing verdict and an exit-code verdict.
 */

const counted = (passed: number, total: number): VerdictView => ({
  passed,
  failed: total - passed,
  skipped: 0,
  total,
  source: "node-test",
  ok: passed === total,
});

const trial = (
  fields: Partial<ReportTrial> & Pick<ReportTrial, "id" | "choice" | "repeat" | "state">,
): ReportTrial => ({
  attempt: 1,
  verdict: null,
  exitCode: null,
  agentSeconds: null,
  evalSeconds: null,
  tokens: tokensWithTotal({ input: 0, cachedInput: 0, output: 0, reasoning: 0 }),
  threadId: null,
  harnessVersion: null,
  error: null,
  startedAt: null,
  finishedAt: null,
  manifest: null,
  ...fields,
});

const configurations: StudyReport["configurations"] = [
  {
    choice: 1,
    harness: "codex",
    model: "gpt-5-codex",
    reasoningEffort: "high",
    instructions: "Keep changes small.\nNo | pipes in names.",
    command: null,
    repeats: 1,
    label: "gpt-5-codex · high",
  },
  {
    choice: 2,
    harness: "codex",
    model: "o4-mini <b>",
    reasoningEffort: "medium",
    instructions: "",
    command: null,
    repeats: 3,
    label: "o4-mini <b> · medium",
  },
  {
    choice: 3,
    harness: "command",
    model: "=cmd|' /C calc'!A0",
    reasoningEffort: "minimal",
    instructions: "",
    command: "./agents/fix.sh --fast",
    repeats: 1,
    label: "=fix | fast",
  },
];

const trials: ReportTrial[] = [
  trial({
    id: "trial-1",
    choice: 1,
    repeat: 1,
    state: "succeeded",
    verdict: counted(23, 23),
    exitCode: 0,
    agentSeconds: 312.46,
    evalSeconds: 41.2,
    tokens: tokensWithTotal({ input: 120_000, cachedInput: 80_000, output: 9_000, reasoning: 4_000 }),
    threadId: "thr_01",
    harnessVersion: "codex-cli 0.171.0",
    startedAt: "2025-03-01T14:05:10.000Z",
    finishedAt: "2025-03-01T14:11:04.000Z",
  }),
  trial({
    id: "trial-2a",
    choice: 2,
    repeat: 1,
    state: "succeeded",
    verdict: counted(23, 23),
    exitCode: 0,
    agentSeconds: 200.04,
    evalSeconds: 39.9,
    tokens: tokensWithTotal({ input: 50_000, cachedInput: 10_000, output: 5_000, reasoning: 2_000 }),
    threadId: "thr_02",
    harnessVersion: "codex-cli 0.171.0",
    startedAt: "2025-03-01T14:05:10.000Z",
    finishedAt: "2025-03-01T14:09:11.000Z",
  }),
  trial({
    id: "trial-2b",
    choice: 2,
    repeat: 2,
    state: "failed",
    verdict: counted(21, 23),
    exitCode: 1,
    agentSeconds: 250,
    evalSeconds: 40.5,
    tokens: tokensWithTotal({ input: 60_000, cachedInput: 30_000, output: 7_000, reasoning: 3_500 }),
    threadId: "thr_03",
    harnessVersion: "codex-cli 0.171.0",
    startedAt: "2025-03-01T14:11:04.000Z",
    finishedAt: "2025-03-01T14:16:00.000Z",
  }),
  trial({
    id: "trial-2c",
    choice: 2,
    repeat: 3,
    attempt: 2,
    state: "error",
    error: "Container exited 137, \"OOM\"\n<script>alert('x')</script> | see logs",
    earlierAttempts: [
      {
        attempt: 1,
        choice: 2,
        model: "o4-mini <b>",
        reasoningEffort: "medium",
        instructions: "",
        state: "failed",
        outcome: "timed-out",
        verdict: counted(0, 23),
        agentSeconds: 1800,
        evalSeconds: 40.1,
        tokens: tokensWithTotal({ input: 90_000, cachedInput: 0, output: 11_000, reasoning: 6_000 }),
        error: "Stopped after 1800 s: the agent time limit.",
        finishedAt: "2025-03-01T14:15:40.000Z",
      },
    ],
    startedAt: "2025-03-01T14:16:00.000Z",
    finishedAt: "2025-03-01T14:16:30.000Z",
  }),
  trial({
    id: "trial-3",
    choice: 3,
    repeat: 1,
    state: "succeeded",
    verdict: { passed: null, failed: null, skipped: null, total: null, source: "exit-code", ok: true },
    exitCode: 0,
    agentSeconds: 5.04,
    evalSeconds: 38,
    threadId: '=HYPERLINK("http://x.example","y")',
    startedAt: "2025-03-01T14:16:30.000Z",
    finishedAt: "2025-03-01T14:17:20.000Z",
  }),
];

export const REPORT_FIXTURE: StudyReport = {
  schema: "invariant-web/study-report",
  version: 2,
  generatedAt: "2025-03-01T15:00:00.000Z",
  study: {
    id: "cm7study0001",
    title: "Fix the | parser <script>alert(1)</script> — naïve café ✓",
    projectId: "cm7project01",
    projectName: "demo *app*",
    taskPrompt:
      "Make the parser accept `a|b` tokens.\n\n# Not a heading\n- not a list\n<script>alert('task')</script>\n    indented line\nDone when `npm test` passes.",
    testCommand: "npm test -- --test-reporter=spec ```",
    junitPath: null,
    testFiles: [{ path: "test/parser.test.js", sha256: "ab".repeat(32), bytes: 4312, role: "test" }],
    state: "done",
    createdAt: "2025-03-01T14:00:00.000Z",
    startedAt: "2025-03-01T14:05:00.000Z",
    finishedAt: "2025-03-01T14:17:20.000Z",
    concurrency: 2,
    agentTimeoutSec: 1800,
    tokenBudget: 250_000,
    evalTimeoutSec: 600,
  },
  environment: {
    versionId: "cm7envver03",
    version: 3,
    imageId: `sha256:${"3f9c2a7b1d04".padEnd(64, "e")}`,
    imageDigest: `sha256:${"9d".repeat(32)}`,
  },
  snapshotId: "5a".repeat(32),
  baseline: { passed: 0, failed: 23, skipped: 0, total: 23, source: "node-test" },
  configurations,
  trials,
  aggregates: aggregateByConfiguration({ configurations, trials }),
};
