import { describe, expect, it } from "vitest";
import { aggregateByConfiguration } from "./study-aggregates";
import { judgedVerdict, testsMissing, testsMissingText } from "./test-integrity";
import { tokensWithTotal } from "./token-usage";
import type { VerdictView } from "./verdict-summary";

const verdict = (passed: number, total: number, source = "node-test"): VerdictView => ({
  passed,
  failed: total - passed,
  skipped: 0,
  total,
  source,
  ok: passed === total && total > 0,
});
const baseline = verdict(0, 17);

describe("the integrity flag 'tests missing'", () => {
  it("flags an evaluation that counted fewer tests than the baseline and judges it against the baseline's total", () => {
    const missing = testsMissing(verdict(0, 1), baseline);
    expect(missing).toEqual({ missing: 16, expected: 17, counted: 1 });
    expect(testsMissingText(missing!)).toBe("tests missing: 16 of 17 did not run");
    expect(judgedVerdict(verdict(0, 1), missing)).toEqual({
      passed: 0,
      failed: 17,
      skipped: 0,
      total: 17,
      source: "node-test",
      ok: false,
    });
    // five passed of the five that ran is not a pass when twelve did not run
    expect(judgedVerdict(verdict(5, 5), testsMissing(verdict(5, 5), baseline))).toMatchObject({ total: 17, ok: false });
  });

  it("does not flag the same or more tests, nor verdicts without counts", () => {
    expect(testsMissing(verdict(3, 17), baseline)).toBeNull();
    expect(testsMissing(verdict(18, 18), baseline)).toBeNull();
    expect(testsMissing({ ...verdict(0, 0, "exit-code"), total: null }, baseline)).toBeNull();
    expect(testsMissing(verdict(0, 1), { source: "exit-code", total: null })).toBeNull();
    expect(testsMissing(null, baseline)).toBeNull();
    expect(judgedVerdict(verdict(3, 17), null)).toEqual(verdict(3, 17));
  });

  it("judged verdicts count as not passed in the aggregates, with the baseline's total in the fraction", () => {
    const judged = judgedVerdict(verdict(1, 1), testsMissing(verdict(1, 1), baseline));
    const [aggregate] = aggregateByConfiguration({
      configurations: [{ choice: 1 }],
      trials: [
        {
          choice: 1,
          state: "succeeded",
          verdict: judged,
          agentSeconds: 1,
          tokens: tokensWithTotal({ input: 0, cachedInput: 0, output: 0, reasoning: 0 }),
        },
      ],
    });
    expect(aggregate?.passedAll).toBe(0);
    expect(aggregate?.meanFractionPassed).toBeCloseTo(1 / 17, 6);
  });
});
