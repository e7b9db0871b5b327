import { describe, expect, it } from "vitest";
import type { TrialView } from "../../../shared/study-schemas";
import { tokensWithTotal } from "../../../shared/token-usage";
import { sortTrials } from "./trial-sort";

/** A finished trial with `passed` of 23 tests; a follow-up when `path` is not empty (its parent: the path without its last). */
function trial(choice: number, repeat: number, passed: number, path: number[] = []): TrialView {
  const number = [choice, repeat, ...path].join(".");
  const parent = path.length > 0 ? [choice, repeat, ...path.slice(0, -1)].join(".") : null;
  return {
    id: `t${number}`,
    configurationId: `c${choice}`,
    workerId: null,
    imageHost: null,
    choice,
    repeat,
    parentTrialId: parent ? `t${parent}` : null,
    followUpPath: path,
    followUpNumber: path.at(-1) ?? null,
    number,
    feedback: parent ? "Implement weekday." : null,
    attempt: 1,
    state: "succeeded",
    outcome: "completed",
    step: "",
    verdict: { passed, failed: 23 - passed, skipped: 0, total: 23, source: "node-test", ok: passed === 23 },
    exitCode: passed === 23 ? 0 : 1,
    agentSeconds: 10,
    evalSeconds: null,
    tokens: tokensWithTotal({ input: 100, cachedInput: 0, output: 20, reasoning: 0 }),
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
  };
}

describe("sortTrials with follow-ups", () => {
  const trials = [
    trial(1, 1, 13),
    trial(1, 2, 5),
    trial(1, 1, 23, [1]),
    trial(1, 1, 20, [2]),
    trial(1, 1, 21, [1, 1]),
    trial(2, 1, 23),
  ];
  const numbers = (sorted: TrialView[]) => sorted.map((item) => item.number);

  it("lists each follow-up right under its parent, in the order of their numbers", () => {
    expect(numbers(sortTrials(trials, new Map(), { key: "choice", dir: 1 }))).toEqual([
      "1.1",
      "1.1.1",
      "1.1.1.1",
      "1.1.2",
      "1.2",
      "2.1",
    ]);
  });

  it("sorts the first attempts by the column and keeps the follow-ups with them", () => {
    // by tests passed, best first: 2.1 (23), 1.1 (13) with its follow-ups whatever their verdicts, 1.2 (5)
    expect(numbers(sortTrials(trials, new Map(), { key: "tests", dir: -1 }))).toEqual([
      "2.1",
      "1.1",
      "1.1.1",
      "1.1.1.1",
      "1.1.2",
      "1.2",
    ]);
  });

  it("shows a follow-up whose parent is not in the list (filtered out) as a row of its own", () => {
    const without = trials.filter((item) => item.number !== "1.1");
    expect(numbers(sortTrials(without, new Map(), { key: "choice", dir: 1 }))).toEqual([
      "1.1.1",
      "1.1.1.1",
      "1.1.2",
      "1.2",
      "2.1",
    ]);
  });
});
