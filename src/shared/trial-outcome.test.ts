import { describe, expect, it } from "vitest";
import {
  describeVerdict,
  trialEndLine,
  trialOutcome,
  verdictCount,
  verdictFraction,
  verdictLevel,
} from "./trial-outcome";
import type { VerdictView } from "./verdict-summary";

const counted = (passed: number, total: number): VerdictView => ({
  passed,
  failed: total - passed,
  skipped: 0,
  total,
  source: "node-test",
  ok: passed === total,
});
const exitCode = (ok: boolean): VerdictView => ({
  passed: null,
  failed: null,
  skipped: null,
  total: null,
  source: "exit-code",
  ok,
});

describe("a trial's outcome", () => {
  it("is completed for a run that was evaluated, whatever its verdict", () => {
    expect(trialOutcome({ state: "succeeded" })).toBe("completed");
    expect(trialOutcome({ state: "succeeded", recorded: "completed", error: null })).toBe("completed");
  });

  it("is agent failed, error, stopped or interrupted from the state", () => {
    expect(trialOutcome({ state: "failed", error: "The agent's turn failed: HTTP 500" })).toBe("agent-failed");
    expect(trialOutcome({ state: "error", error: "Docker went away" })).toBe("error");
    expect(trialOutcome({ state: "stopped", error: "Stopped by admin." })).toBe("stopped");
    expect(trialOutcome({ state: "interrupted" })).toBe("interrupted");
  });

  it("is timed out when the worker said so, or, for older records, when the error names a time limit", () => {
    expect(trialOutcome({ state: "failed", recorded: "timed-out", error: "anything" })).toBe("timed-out");
    expect(trialOutcome({ state: "failed", error: "Stopped after 60 s: the agent time limit." })).toBe("timed-out");
    expect(trialOutcome({ state: "error", error: "The test command ran past the evaluation time limit (600 s)" })).toBe(
      "timed-out",
    );
    expect(trialOutcome({ state: "error", recorded: "not-an-outcome", error: null })).toBe("error");
  });

  it("is null while the trial has not ended", () => {
    for (const state of ["queued", "preparing", "agent", "evaluating"] as const)
      expect(trialOutcome({ state })).toBeNull();
  });
});

describe("a verdict's level", () => {
  it("is all passed, partial or none passed by the fraction of tests passed", () => {
    expect(verdictLevel(counted(23, 23))).toBe("all-passed");
    expect(verdictLevel(counted(13, 23))).toBe("partial");
    expect(verdictLevel(counted(0, 23))).toBe("none-passed");
    expect(verdictFraction(counted(13, 23))).toBeCloseTo(13 / 23);
  });

  it("reads an exit-code verdict as all or none, no tests as none, and no verdict as null", () => {
    expect(verdictLevel(exitCode(true))).toBe("all-passed");
    expect(verdictLevel(exitCode(false))).toBe("none-passed");
    expect(verdictLevel(counted(0, 0))).toBe("none-passed");
    expect(verdictLevel(null)).toBeNull();
    expect(verdictFraction(null)).toBeNull();
  });

  it("is written as counts and in words", () => {
    expect(verdictCount(counted(0, 23))).toBe("0/23");
    expect(verdictCount(exitCode(true))).toBe("pass");
    expect(verdictCount(null)).toBeNull();
    expect(describeVerdict(counted(0, 23))).toBe("0/23 tests passed");
    expect(describeVerdict(exitCode(false))).toBe("the test command failed");
  });
});

describe("the trial log's last line", () => {
  it("says the run completed and how many tests passed, never that a 0/23 run succeeded", () => {
    expect(trialEndLine({ outcome: "completed", verdict: counted(0, 23), reason: null })).toBe(
      "Trial completed: 0/23 tests passed",
    );
    expect(trialEndLine({ outcome: "completed", verdict: null, reason: null })).toBe("Trial completed: no verdict");
  });

  it("gives the reason of a run that did not complete, then its verdict when the workspace was judged", () => {
    expect(
      trialEndLine({
        outcome: "timed-out",
        verdict: counted(4, 23),
        reason: "Stopped after 60 s: the agent time limit.",
      }),
    ).toBe("Trial timed out: Stopped after 60 s: the agent time limit. (4/23 tests passed)");
    expect(trialEndLine({ outcome: "stopped", verdict: null, reason: "Stopped by admin." })).toBe(
      "Trial stopped: Stopped by admin.",
    );
  });
});
