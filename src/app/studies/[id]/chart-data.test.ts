import { describe, expect, it } from "vitest";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { tokensWithTotal } from "../../../shared/token-usage";
import type { VerdictView } from "../../../shared/verdict-summary";
import { withLabels } from "../../../shared/configuration-label";
import { configurationChartPoints, trialChartPoints } from "./chart-data";

const configuration = (
  choice: number,
  model: string,
  effort: ConfigurationView["reasoningEffort"],
  repeats = 1,
): ConfigurationView => ({
  id: `c${choice}`,
  choice,
  harness: "codex",
  model,
  reasoningEffort: effort,
  instructions: "",
  overrides: [],
  command: null,
  repeats,
  derivedFrom: null,
  customLabel: null,
  label: `${model} · ${effort}`,
});

const counted = (passed: number, total = 23): VerdictView => ({
  passed,
  failed: total - passed,
  skipped: 0,
  total,
  source: "node-test",
  ok: passed === total,
});

const trial = (choice: number, repeat: number, verdict: VerdictView | null): TrialView => ({
  id: `t${choice}.${repeat}`,
  configurationId: `c${choice}`,
  workerId: null,
  imageHost: null,
  choice,
  repeat,
  parentTrialId: null,
  followUpPath: [],
  followUpNumber: null,
  number: `${choice}.${repeat}`,
  feedback: null,
  attempt: 1,
  state: verdict ? "succeeded" : "queued",
  outcome: verdict ? "completed" : null,
  step: "",
  verdict,
  exitCode: verdict ? 1 : null,
  agentSeconds: verdict ? 10 : null,
  evalSeconds: null,
  tokens: tokensWithTotal({ input: verdict ? 100 : 0, cachedInput: 0, output: verdict ? 20 : 0, reasoning: 0 }),
  commandsRun: 0,
  threadId: null,
  harnessVersion: null,
  committedImageId: null,
  workspaceId: null,
  diff: null,
  error: null,
  queuedAt: "2026-01-01T00:00:00.000Z",
  startedAt: null,
  finishedAt: null,
  attempts: [],
  capturedChanges: null,
  testSteering: null,
  testsMissing: null,
  manifest: null,
  reportedModel: null,
});

const configurations = [
  configuration(1, "calendar-fix-all", "medium"),
  configuration(2, "calendar-fix-some", "high", 2),
  configuration(3, "calendar-fix-none", "medium"),
];
const trials = [trial(3, 1, counted(0)), trial(2, 2, counted(11)), trial(1, 1, counted(23)), trial(2, 1, counted(13))];

describe("the study page's chart data", () => {
  it("labels each trial with its model and effort (and its trial number when its configuration ran more than once)", () => {
    expect(trialChartPoints({ trials, configurations }).map((point) => point.label)).toEqual([
      "calendar-fix-all · medium",
      "2.1 calendar-fix-some · high",
      "2.2 calendar-fix-some · high",
      "calendar-fix-none · medium",
    ]);
  });

  it("gives tests passed, the total and the fraction per trial; none without a verdict", () => {
    const points = trialChartPoints({ trials: [...trials, trial(1, 2, null)], configurations });
    expect(points.map((point) => [point.passed, point.total])).toEqual([
      [23, 23],
      [null, null],
      [13, 23],
      [11, 23],
      [0, 23],
    ]);
    expect(points[0]?.fraction).toBe(1);
    expect(points[4]?.fraction).toBe(0);
    expect(points[1]).toMatchObject({ fraction: null, tokens: null, seconds: null });
  });

  it("gives each configuration the mean and range of tests passed over its judged trials", () => {
    const points = configurationChartPoints({ trials, configurations });
    expect(
      points.map(({ choice, label, judged, meanPassed, range, total }) => ({
        choice,
        label,
        judged,
        meanPassed,
        range,
        total,
      })),
    ).toEqual([
      { choice: 1, label: "calendar-fix-all · medium", judged: 1, meanPassed: 23, range: [23, 23], total: 23 },
      { choice: 2, label: "calendar-fix-some · high", judged: 2, meanPassed: 12, range: [11, 13], total: 23 },
      { choice: 3, label: "calendar-fix-none · medium", judged: 1, meanPassed: 0, range: [0, 0], total: 23 },
    ]);
    expect(points[1]?.fraction).toBeCloseTo(12 / 23);
  });

  it("counts an exit-code verdict as 1/1 or 0/1, and names configurations by their study-wide labels", () => {
    const exit: VerdictView = { passed: null, failed: null, skipped: null, total: null, source: "exit-code", ok: true };
    expect(trialChartPoints({ trials: [trial(1, 1, exit)], configurations })[0]).toMatchObject({ passed: 1, total: 1 });
    const twins = withLabels([
      configuration(1, "m", "high"),
      configuration(2, "m", "high"),
      { ...configuration(3, "(command)", "low"), harness: "command" as const, command: "./agent.sh --fast" },
    ]);
    expect(configurationChartPoints({ trials: [], configurations: twins }).map((point) => point.label)).toEqual([
      "m · high",
      "m · high #2",
      "./agent.sh --fast",
    ]);
  });
});
