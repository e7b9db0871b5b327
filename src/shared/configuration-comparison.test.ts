import { describe, expect, it } from "vitest";
import { compareAllPairs, compareConfigurations, comparePair, meanFractionPassed } from "./configuration-comparison";

const sample = (choice: number, passedAll: number, finished: number) => ({
  choice,
  label: `config ${choice}`,
  passedAll,
  finished,
});

describe("comparePair", () => {
  it("calls the more frequent passer better when the interval excludes zero", () => {
    const result = comparePair(sample(1, 3, 10), sample(2, 9, 10));
    expect(result.verdict).toBe("better");
    expect(result.difference).toBeCloseTo(0.6, 6);
    expect(result.interval?.low).toBeCloseTo(0.1705, 3);
    expect(result.interval?.high).toBeCloseTo(0.809, 3);
    expect(result.fisherP).toBeCloseTo(0.0198, 3);
    expect(result.sentence).toBe(
      "config 2 passes more often than config 1: 9/10 vs 3/10, difference 60 points, 95 % CI 17 to 81 points, Fisher's exact p = 0.020.",
    );
  });

  it("names the winner whichever side it is on", () => {
    const result = comparePair(sample(1, 9, 10), sample(2, 3, 10));
    expect(result.verdict).toBe("better");
    expect(result.difference).toBeCloseTo(-0.6, 6);
    expect(result.sentence).toBe(
      "config 1 passes more often than config 2: 9/10 vs 3/10, difference 60 points, 95 % CI 17 to 81 points, Fisher's exact p = 0.020.",
    );
  });

  it("calls nothing better when the interval excludes zero but Fisher's exact test does not agree", () => {
    const result = comparePair(sample(1, 0, 3), sample(2, 3, 3));
    expect(result.interval?.low).toBeGreaterThan(0);
    expect(result.fisherP).toBeCloseTo(0.1, 3);
    expect(result.verdict).toBe("not-distinguishable");
    // the sentence says in plain words why 0/3 vs 3/3 is not called a difference
    expect(result.sentence).toBe(
      "config 1 and config 2 are not distinguishable with these repeats: 0/3 vs 3/3; with only 3 and 3 trials, the gap of 100 points can still be chance: Fisher's exact test finds a split at least this uneven 10 % of the time when both pass equally often, and a difference is called only under 5 % (the 95 % interval leaves out zero, but at these counts both must agree) (difference 100 points, 95 % CI 21 to 100 points, Fisher's exact p = 0.100); to tell 5 % from 95 % apart takes about 4 repeats per configuration (α 0.05, power 0.8).",
    );
  });

  it("says the interval of a small gap includes zero, and that equal rates are equal", () => {
    expect(comparePair(sample(1, 2, 3), sample(2, 1, 3)).sentence).toContain(
      "with only 3 and 3 trials, the gap of 33 points can still be chance: its 95 % interval includes zero",
    );
    expect(comparePair(sample(1, 2, 2), sample(2, 2, 2)).sentence).toContain(
      "with only 2 and 2 trials both passed every test equally often",
    );
    expect(comparePair(sample(1, 5, 12), sample(2, 6, 12)).sentence).toContain("with 12 and 12 trials, the gap");
  });

  it("says two close rates are not distinguishable, and how many repeats would tell them apart", () => {
    const result = comparePair(sample(1, 2, 3), sample(2, 1, 3));
    expect(result.verdict).toBe("not-distinguishable");
    expect(result.interval?.low).toBeLessThan(0);
    expect(result.interval?.high).toBeGreaterThan(0);
    expect(result.sentence).toMatch(/^config 1 and config 2 are not distinguishable with these repeats: 2\/3 vs 1\/3/);
    expect(result.sentence).toContain("to tell 33 % from 67 % apart takes about 35 repeats per configuration");
  });

  it("makes no comparison with one repeat each", () => {
    const result = comparePair(sample(1, 1, 1), sample(2, 0, 1));
    expect(result.verdict).toBe("too-few-repeats");
    expect(result.interval).toBeNull();
    expect(result.fisherP).toBeNull();
    expect(result.difference).toBe(-1);
    expect(result.sentence).toBe(
      "config 1 and config 2 cannot be compared with a single finished repeat (1/1 vs 0/1): to tell 5 % from 95 % apart takes about 4 repeats per configuration (α 0.05, power 0.8).",
    );
  });

  it("plans for 50 % vs 80 % when the observed rates are equal", () => {
    expect(comparePair(sample(1, 1, 1), sample(2, 1, 1)).sentence).toContain(
      "to tell 50 % from 80 % apart takes about 39 repeats",
    );
  });
});

describe("compareAllPairs and compareConfigurations", () => {
  it("compares every pair once, in choice order", () => {
    const pairs = compareAllPairs([sample(1, 0, 2), sample(2, 1, 2), sample(3, 2, 2)]);
    expect(pairs.map((pair) => [pair.a, pair.b])).toEqual([
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
  });

  it("names configurations by number and label, and skips those without aggregates", () => {
    const pairs = compareConfigurations(
      [
        { choice: 1, label: "gpt-5 · low" },
        { choice: 2, label: "./agent.sh --fast" },
        { choice: 3, label: "gpt-5 · high" },
      ],
      [
        { choice: 1, passedAll: 0, finished: 5 },
        { choice: 2, passedAll: 5, finished: 5 },
      ],
    );
    expect(pairs).toHaveLength(1);
    expect(pairs[0]?.sentence).toMatch(
      /^Configuration 2 \(\.\/agent\.sh --fast\) passes more often than Configuration 1 \(gpt-5 · low\)/,
    );
  });
});

describe("meanFractionPassed", () => {
  it("gives the mean with a t interval, and no interval for one trial", () => {
    const many = meanFractionPassed([1, 0.5, 0.75, 1, 0.25]);
    expect(many.mean).toBeCloseTo(0.7, 6);
    expect(many.interval?.low).toBeCloseTo(0.295, 3);
    expect(meanFractionPassed([0.5])).toEqual({ mean: 0.5, interval: null });
    expect(meanFractionPassed([])).toEqual({ mean: null, interval: null });
  });
});
