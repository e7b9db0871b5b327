import { describe, expect, it } from "vitest";
import { repeatNumbers, trialNumbering } from "./trial-numbering";

const row = (id: string, configurationId: string, at: number, parentTrialId: string | null = null) => ({
  id,
  configurationId,
  queuedAt: new Date(at),
  parentTrialId,
});

describe("trial numbering", () => {
  it("numbers first attempts as repeats; a follow-up gets its parent's repeat and its place", () => {
    const numbers = trialNumbering([
      row("a", "c1", 1),
      row("b", "c1", 2),
      row("c", "c2", 3),
      row("a1", "c1", 10, "a"),
      row("a2", "c1", 12, "a"),
      row("a11", "c1", 11, "a1"),
      row("d", "c1", 20), // a repeat added after the follow-ups is repeat 3, not 5
    ]);
    expect(Object.fromEntries(numbers)).toEqual({
      a: { repeat: 1, followUpPath: [] },
      b: { repeat: 2, followUpPath: [] },
      c: { repeat: 1, followUpPath: [] },
      a1: { repeat: 1, followUpPath: [1] },
      a2: { repeat: 1, followUpPath: [2] },
      a11: { repeat: 1, followUpPath: [1, 1] },
      d: { repeat: 3, followUpPath: [] },
    });
    expect(repeatNumbers([row("x", "c", 1), row("y", "c", 2, "x")]).get("y")).toBe(1);
  });

  it("numbers a follow-up whose parent is not among the rows as a first attempt", () => {
    expect(trialNumbering([row("y", "c", 2, "gone")]).get("y")).toEqual({ repeat: 1, followUpPath: [] });
  });
});
