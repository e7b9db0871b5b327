import { describe, expect, it } from "vitest";
import { MAX_REPEATS_PER_CLICK, studyHeadline } from "./study-headline";
import type { TrialState } from "./vocabulary";

const configurations = [
  { choice: 1, label: "gpt-5 · low" },
  { choice: 2, label: "gpt-5 · medium" },
  { choice: 3, label: "gpt-5 · high" },
];

const tokens = { input: 0, cachedInput: 0, output: 0, reasoning: 0, total: 0 };

function trial(choice: number, passed: number | null, total = 23, state: TrialState = "succeeded") {
  const verdict =
    passed === null
      ? null
      : { passed, failed: total - passed, skipped: 0, total, source: "junit", ok: passed === total };
  return {
    choice,
    state: passed === total ? state : state === "succeeded" ? "failed" : state,
    verdict,
    agentSeconds: 1,
    tokens,
  };
}

describe("studyHeadline", () => {
  it("names each configuration's result, best first, and says one repeat cannot tell them apart", () => {
    const headline = studyHeadline({ configurations, trials: [trial(1, 12), trial(2, 5), trial(3, 23)] });
    expect(headline?.sentence).toBe(
      "Configuration 3 · gpt-5 · high passed 23/23; Configuration 1 · gpt-5 · low partial 12/23; Configuration 2 · gpt-5 · medium partial 5/23",
    );
    expect(headline?.results.map((result) => result.kind)).toEqual(["passed", "partial", "partial"]);
    // 1/1 vs 0/1: plan for 5 % vs 95 %, which takes about 4 repeats per configuration
    expect(headline?.comparison).toBe("not distinguishable with 1 repeat — run 4+ repeats to tell them apart");
    expect(headline?.suggestedRepeats).toBe(4);
    expect(headline?.repeatsToAdd).toBe(3);
  });

  it("counts trials that passed every test when configurations ran several repeats", () => {
    const trials = [trial(1, 23), trial(1, 23), trial(1, 23), trial(2, 0), trial(2, 0), trial(2, 4)];
    const headline = studyHeadline({ configurations: configurations.slice(0, 2), trials });
    expect(headline?.sentence).toBe(
      "Configuration 1 · gpt-5 · low passed every test in 3/3 trials; Configuration 2 · gpt-5 · medium partial: passed every test in 0/3 trials (median 0/23 tests)",
    );
    // 3/3 vs 0/3: Fisher's p is 0.1, so not called better; 4 repeats each would tell 5 % from 95 %
    expect(headline?.comparison).toBe("not distinguishable with 3 repeats — run 4+ repeats to tell them apart");
    expect(headline?.repeatsToAdd).toBe(1);
  });

  it("says which configuration passes more often when the comparison decides", () => {
    const trials = [
      ...Array.from({ length: 10 }, (_, i) => trial(1, i < 3 ? 23 : 0)),
      ...Array.from({ length: 10 }, (_, i) => trial(2, i < 9 ? 23 : 0)),
    ];
    const headline = studyHeadline({ configurations: configurations.slice(0, 2), trials });
    expect(headline?.results[0]?.name).toBe("Configuration 2 · gpt-5 · medium");
    expect(headline?.results.map((result) => result.result)).toEqual([
      "partial: passed every test in 9/10 trials (median 23/23 tests)",
      "partial: passed every test in 3/10 trials (median 0/23 tests)",
    ]);
    expect(headline?.comparison).toBe("Configuration 2 passes more often than Configuration 1");
    expect(headline?.suggestedRepeats).toBeNull();
    // no suggestion: as many again as ran, at most MAX_REPEATS_PER_CLICK
    expect(headline?.repeatsToAdd).toBe(MAX_REPEATS_PER_CLICK);
  });

  it("mixes decided and undecided pairs in one clause", () => {
    const trials = [
      ...Array.from({ length: 10 }, () => trial(1, 0)),
      ...Array.from({ length: 10 }, () => trial(2, 23)),
      ...Array.from({ length: 10 }, (_, i) => trial(3, i < 9 ? 23 : 0)),
    ];
    const headline = studyHeadline({ configurations, trials });
    expect(headline?.comparison).toMatch(
      /^Configuration 2 passes more often than Configuration 1; Configuration 3 passes more often than Configuration 1; the others are not distinguishable with 10 repeats — run \d+\+ repeats to tell them apart$/,
    );
    expect(headline?.results.map((result) => [result.choice, result.kind])).toEqual([
      [2, "passed"],
      [3, "partial"],
      [1, "failed"],
    ]);
    expect(headline?.results.at(-1)?.result).toBe("failed: no test passed in 10 trials");
  });

  it("reads exit-code verdicts and trials without a verdict", () => {
    const exitCode = (ok: boolean) => ({
      choice: 1,
      state: (ok ? "succeeded" : "failed") as TrialState,
      verdict: { passed: null, failed: null, skipped: null, total: null, source: "exit-code", ok },
      agentSeconds: 1,
      tokens,
    });
    expect(studyHeadline({ configurations: configurations.slice(0, 1), trials: [exitCode(true)] })?.sentence).toBe(
      "Configuration 1 · gpt-5 · low passed (exit code 0)",
    );
    const errored = { ...trial(2, null), state: "error" as TrialState };
    const headline = studyHeadline({ configurations: configurations.slice(0, 2), trials: [exitCode(false), errored] });
    expect(headline?.sentence).toBe(
      "Configuration 1 · gpt-5 · low failed (exit code); Configuration 2 · gpt-5 · medium no verdict (error)",
    );
  });

  it("has no comparison for one configuration, and doubles its repeats", () => {
    const headline = studyHeadline({
      configurations: configurations.slice(0, 1),
      trials: [trial(1, 23), trial(1, 20)],
    });
    expect(headline?.comparison).toBeNull();
    expect(headline?.repeatsToAdd).toBe(2);
  });

  it("is null while a trial is open and for a study without trials", () => {
    expect(studyHeadline({ configurations, trials: [] })).toBeNull();
    expect(studyHeadline({ configurations, trials: [trial(1, 23), { ...trial(2, null), state: "agent" }] })).toBeNull();
  });

  it("adds no more repeats than the study's trial cap leaves room for", () => {
    const trials = Array.from({ length: 199 }, () => trial(1, 23));
    expect(studyHeadline({ configurations: configurations.slice(0, 1), trials })?.repeatsToAdd).toBe(1);
    const full = Array.from({ length: 100 }, (_, i) => trial(1 + (i % 2), 23));
    expect(
      studyHeadline({ configurations: configurations.slice(0, 2), trials: [...full, ...full] })?.repeatsToAdd,
    ).toBe(0);
  });
});
