import { describe, expect, it } from "vitest";
import {
  fisherExactTwoSided,
  meanInterval,
  newcombeDifference,
  repeatsToDetect,
  tQuantile975,
  wilsonInterval,
} from "./statistics";

// Reference values: Newcombe, "Interval estimation for the difference between independent proportions"
// (Statistics in Medicine 17, 1998), table II, method 10; the rest from SciPy 1.17 (binomtest(...).
// proportion_ci(method="wilson"), fisher_exact, t.ppf) on this machine.
describe("wilsonInterval", () => {
  it.each([
    [9, 10, 0.596, 0.982],
    [3, 10, 0.108, 0.603],
    [0, 10, 0, 0.278],
    [10, 10, 0.722, 1],
    [81, 263, 0.255, 0.366],
  ])("%i/%i → %f–%f", (successes, trials, low, high) => {
    const interval = wilsonInterval(successes, trials);
    expect(interval?.low).toBeCloseTo(low, 3);
    expect(interval?.high).toBeCloseTo(high, 3);
  });

  it("has no interval without trials", () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe("newcombeDifference", () => {
  it.each([
    [56, 70, 48, 80, 0.2, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.6, 0.1705, 0.809],
    [5, 56, 0, 29, 0.0893, -0.0381, 0.1926],
    [10, 10, 0, 10, 1, 0.6075, 1],
  ])("%i/%i − %i/%i", (x1, n1, x2, n2, difference, low, high) => {
    const interval = newcombeDifference(x1, n1, x2, n2);
    expect(interval?.difference).toBeCloseTo(difference, 3);
    expect(interval?.low).toBeCloseTo(low, 3);
    expect(interval?.high).toBeCloseTo(high, 3);
  });

  it("one repeat each cannot exclude no difference", () => {
    const interval = newcombeDifference(1, 1, 0, 1);
    expect(interval?.low).toBeLessThan(0);
  });
});

describe("fisherExactTwoSided", () => {
  it.each([
    [9, 1, 3, 7, 0.0198],
    [3, 1, 1, 3, 0.4857],
    [10, 0, 0, 10, 0.0000108],
    [1, 0, 0, 1, 1],
    [0, 0, 0, 0, 1],
  ])("[[%i, %i], [%i, %i]] → p = %f", (a, b, c, d, p) => {
    expect(fisherExactTwoSided(a, b, c, d)).toBeCloseTo(p, p < 0.001 ? 7 : 3);
  });
});

describe("meanInterval", () => {
  it("is the t interval, clamped to the bounds", () => {
    const interval = meanInterval([1, 0.5, 0.75, 1, 0.25]);
    expect(interval?.mean).toBeCloseTo(0.7, 6);
    expect(interval?.low).toBeCloseTo(0.295, 3);
    expect(interval?.high).toBe(1);
  });

  it("has none for a single value", () => {
    expect(meanInterval([0.5])).toBeNull();
    expect(meanInterval([])).toBeNull();
  });
});

describe("tQuantile975", () => {
  it.each([
    [1, 12.706],
    [4, 2.776],
    [29, 2.045],
    [31, 2.04],
    [60, 2.0],
    [120, 1.98],
  ])("df %i → %f", (df, t) => {
    expect(tQuantile975(df)).toBeCloseTo(t, 2);
  });

  it("refuses zero degrees of freedom", () => {
    expect(() => tQuantile975(0)).toThrow(RangeError);
  });
});

describe("repeatsToDetect", () => {
  it.each([
    [0.5, 0.8, 39],
    [0.3, 0.9, 10],
    [0.2, 0.5, 39],
  ])("%f vs %f → %i repeats each", (p1, p2, n) => {
    expect(repeatsToDetect(p1, p2)).toBe(n);
  });

  it("cannot tell equal rates apart", () => {
    expect(repeatsToDetect(0.5, 0.5)).toBeNull();
  });
});
