import { describe, expect, it } from "vitest";
import { aggregateByConfiguration, median, trialPassedAll, type AggregatableTrial } from "./study-aggregates";
import { studyAggregateSchema } from "./study-report";
import { tokensWithTotal } from "./token-usage";
import type { VerdictView } from "./verdict-summary";
import type { TrialState } from "./vocabulary";

const counted = (passed: number, total: number): VerdictView => ({
  passed,
  failed: total - passed,
  skipped: 0,
  total,
  source: "node-test",
  ok: passed === total,
});
const byExitCode = (ok: boolean): VerdictView => ({
  passed: null,
  failed: null,
  skipped: null,
  total: null,
  source: "exit-code",
  ok,
});

function trial(options: {
  choice: number;
  state?: TrialState;
  verdict?: VerdictView | null;
  agentSeconds?: number | null;
  tokens?: number;
}): AggregatableTrial {
  const total = options.tokens ?? 0;
  return {
    choice: options.choice,
    state: options.state ?? "succeeded",
    verdict: options.verdict ?? null,
    agentSeconds: options.agentSeconds === undefined ? 10 : options.agentSeconds,
    tokens: tokensWithTotal({ input: total, cachedInput: 0, output: 0, reasoning: 0 }),
  };
}

describe("median", () => {
  it("takes the middle value of an odd count, the mean of the two middle values of an even count", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNull();
  });

  it("sorts numerically, not as text, and leaves its input alone", () => {
    const values = [10, 9, 100];
    expect(median(values)).toBe(10);
    expect(values).toEqual([10, 9, 100]);
  });
});

describe("trialPassedAll", () => {
  it("needs an ok verdict that counted tests, or an ok exit code", () => {
    expect(trialPassedAll({ verdict: counted(23, 23) })).toBe(true);
    expect(trialPassedAll({ verdict: counted(22, 23) })).toBe(false);
    expect(trialPassedAll({ verdict: { ...counted(0, 0), ok: true } })).toBe(false);
    expect(trialPassedAll({ verdict: { ...counted(5, 5), total: null } })).toBe(false);
    expect(trialPassedAll({ verdict: byExitCode(true) })).toBe(true);
    expect(trialPassedAll({ verdict: byExitCode(false) })).toBe(false);
    expect(trialPassedAll({ verdict: null })).toBe(false);
  });
});

describe("aggregateByConfiguration", () => {
  it("counts, rates and takes medians per configuration, in configuration order", () => {
    const aggregates = aggregateByConfiguration({
      configurations: [{ choice: 2 }, { choice: 1 }],
      trials: [
        trial({ choice: 1, verdict: counted(23, 23), agentSeconds: 30, tokens: 1000 }),
        trial({ choice: 2, verdict: counted(23, 23), agentSeconds: 40, tokens: 4000 }),
        trial({ choice: 2, state: "failed", verdict: counted(20, 23), agentSeconds: 10, tokens: 2000 }),
        trial({ choice: 2, verdict: counted(23, 23), agentSeconds: 25, tokens: 3000 }),
        trial({ choice: 2, state: "failed", verdict: counted(21, 23), agentSeconds: 12.5, tokens: 1000 }),
      ],
    });
    expect(aggregates).toEqual([
      {
        choice: 2,
        trials: 4,
        finished: 4,
        passedAll: 2,
        passRate: 0.5,
        passRateInterval: { low: expect.closeTo(0.15, 3) as number, high: expect.closeTo(0.85, 3) as number },
        meanFractionPassed: expect.closeTo(87 / 92, 9) as number,
        meanFractionInterval: { low: expect.closeTo(0.842, 3) as number, high: 1 },
        medianAgentSeconds: 18.75,
        medianTokens: 2500,
        agentSeconds: { min: 10, max: 40 },
        tokens: { min: 1000, max: 4000 },
        medianTestsPassed: 22,
      },
      {
        choice: 1,
        trials: 1,
        finished: 1,
        passedAll: 1,
        passRate: 1,
        passRateInterval: { low: expect.closeTo(0.2065, 3) as number, high: 1 },
        meanFractionPassed: 1,
        meanFractionInterval: null,
        medianAgentSeconds: 30,
        medianTokens: 1000,
        agentSeconds: { min: 30, max: 30 },
        tokens: { min: 1000, max: 1000 },
        medianTestsPassed: 23,
      },
    ]);
    for (const aggregate of aggregates) expect(studyAggregateSchema.parse(aggregate)).toEqual(aggregate);
  });

  it("leaves unfinished trials out of the rate and the medians", () => {
    const [aggregate] = aggregateByConfiguration({
      configurations: [{ choice: 1 }],
      trials: [
        trial({ choice: 1, verdict: counted(3, 3), agentSeconds: 20, tokens: 500 }),
        trial({ choice: 1, state: "agent", agentSeconds: null, tokens: 9999 }),
        trial({ choice: 1, state: "queued", agentSeconds: null }),
        trial({ choice: 1, state: "evaluating", agentSeconds: 99, tokens: 9999 }),
      ],
    });
    expect(aggregate).toMatchObject({
      trials: 4,
      finished: 1,
      passedAll: 1,
      passRate: 1,
      medianAgentSeconds: 20,
      medianTokens: 500,
      medianTestsPassed: 3,
    });
  });

  it("counts every terminal state as finished, and passes exit-code verdicts by their outcome", () => {
    const [aggregate] = aggregateByConfiguration({
      configurations: [{ choice: 1 }],
      trials: [
        trial({ choice: 1, verdict: byExitCode(true) }),
        trial({ choice: 1, state: "failed", verdict: byExitCode(false) }),
        trial({ choice: 1, state: "error", verdict: null, agentSeconds: null }),
        trial({ choice: 1, state: "stopped", verdict: null }),
        trial({ choice: 1, state: "interrupted", verdict: null }),
      ],
    });
    expect(aggregate).toMatchObject({ trials: 5, finished: 5, passedAll: 1, passRate: 0.2, medianTestsPassed: null });
  });

  it("does not count the zero tokens of a trial whose agent never ran", () => {
    const [aggregate] = aggregateByConfiguration({
      configurations: [{ choice: 1 }],
      trials: [
        trial({ choice: 1, state: "error", agentSeconds: null, tokens: 0 }),
        trial({ choice: 1, agentSeconds: 12, tokens: 800 }),
        trial({ choice: 1, agentSeconds: 14, tokens: 0 }),
      ],
    });
    expect(aggregate).toMatchObject({
      medianTokens: 400,
      tokens: { min: 0, max: 800 },
      medianAgentSeconds: 13,
      agentSeconds: { min: 12, max: 14 },
    });
  });

  it("gives nulls, not zeros, to a configuration with nothing finished", () => {
    const aggregates = aggregateByConfiguration({
      configurations: [{ choice: 1 }, { choice: 3 }],
      trials: [trial({ choice: 1, state: "queued", agentSeconds: null }), trial({ choice: 7, verdict: counted(1, 1) })],
    });
    const nothing = {
      passedAll: 0,
      passRate: null,
      passRateInterval: null,
      meanFractionPassed: null,
      meanFractionInterval: null,
      medianAgentSeconds: null,
      medianTokens: null,
      agentSeconds: null,
      tokens: null,
      medianTestsPassed: null,
    };
    expect(aggregates).toEqual([
      { choice: 1, trials: 1, finished: 0, ...nothing },
      { choice: 3, trials: 0, finished: 0, ...nothing },
    ]);
  });
});
