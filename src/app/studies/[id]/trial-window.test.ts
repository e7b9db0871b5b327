import { describe, expect, it } from "vitest";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { matchesFind } from "./trial-sort";
import { refetchEveryMs } from "./use-study-live";
import { windowIndices } from "./use-row-window";

describe("windowIndices", () => {
  it("renders the rows of the range plus the pinned ones, in order, within the table", () => {
    expect(windowIndices({ count: 200, start: 40, end: 45, pinned: [3, 44, 199, 250] })).toEqual([
      3, 40, 41, 42, 43, 44, 199,
    ]);
    expect(windowIndices({ count: 10, start: -5, end: 30, pinned: [] })).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(windowIndices({ count: 10, start: 12, end: 20, pinned: [] })).toEqual([]);
  });
});

describe("matchesFind", () => {
  const configuration = {
    choice: 3,
    harness: "codex",
    model: "gpt-5-codex",
    reasoningEffort: "high",
  } as ConfigurationView;
  const trial = { choice: 3, repeat: 17, state: "failed", outcome: "agent-failed", error: "stream error" } as TrialView;
  it("matches every word against the label, state, outcome, model, effort and error", () => {
    expect(matchesFind(trial, configuration, "")).toBe(true);
    expect(matchesFind(trial, configuration, "3.17")).toBe(true);
    expect(matchesFind(trial, configuration, "FAILED codex high")).toBe(true);
    expect(matchesFind(trial, configuration, "stream")).toBe(true);
    expect(matchesFind(trial, configuration, "3.17 succeeded")).toBe(false);
    expect(matchesFind(trial, configuration, "2.17")).toBe(false);
  });
});

describe("refetchEveryMs", () => {
  it("refetches a small study every 300 ms and a big one at most once a second", () => {
    expect(refetchEveryMs(3)).toBe(300);
    expect(refetchEveryMs(100)).toBe(500);
    expect(refetchEveryMs(200)).toBe(1000);
    expect(refetchEveryMs(2000)).toBe(1000);
  });
});
