import { describe, expect, it } from "vitest";
import { buildTestMatrix, visibleTests } from "./test-matrix";

const rows = (spec: string) =>
  spec.split(" ").map((entry) => {
    const [name = "", status] = entry.split(":");
    return {
      name,
      status: status === "p" ? ("passed" as const) : status === "s" ? ("skipped" as const) : ("failed" as const),
    };
  });

describe("the per-test matrix", () => {
  const matrix = buildTestMatrix({
    trials: [
      { id: "b1", choice: 2, repeat: 1 },
      { id: "a2", choice: 1, repeat: 2 },
      { id: "a1", choice: 1, repeat: 1 },
      { id: "none", choice: 2, repeat: 2 },
    ],
    results: new Map([
      ["a1", rows("adds:p subtracts:f dup:p dup:f")],
      ["a2", rows("adds:p subtracts:p dup:p dup:f")],
      ["b1", rows("adds:f extra:s")],
    ]),
  });

  it("has a column per trial with per-test rows, by configuration and repeat, and a row per test in first-reported order", () => {
    expect(matrix.trials.map((trial) => trial.id)).toEqual(["a1", "a2", "b1"]);
    expect(matrix.tests.map((test) => test.name)).toEqual(["adds", "subtracts", "dup", "dup (2)", "extra"]);
    expect(matrix.tests.find((test) => test.name === "extra")?.cells).toEqual(["missing", "missing", "skipped"]);
  });

  it("marks a test that flips between repeats of one configuration, not one that differs between configurations", () => {
    const flips = Object.fromEntries(matrix.tests.map((test) => [test.name, test.flipsIn]));
    expect(flips).toEqual({ adds: [], subtracts: [1], dup: [], "dup (2)": [], extra: [] });
    expect(matrix.tests[0]?.passed).toBe(2);
  });

  it("filters by name and flipping, and sorts by name, failures or flips", () => {
    const names = (options: Partial<Parameters<typeof visibleTests>[0]>) =>
      visibleTests({ matrix, query: "", flippingOnly: false, sort: "order", ...options }).map((test) => test.name);
    expect(names({ query: "DUP" })).toEqual(["dup", "dup (2)"]);
    expect(names({ flippingOnly: true })).toEqual(["subtracts"]);
    expect(names({ sort: "name" })).toEqual(["adds", "dup", "dup (2)", "extra", "subtracts"]);
    expect(names({ sort: "failures" }).slice(0, 2)).toEqual(["dup (2)", "extra"]);
    expect(names({ sort: "flips" })[0]).toBe("subtracts");
  });
});
