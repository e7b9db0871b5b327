import { describe, expect, it } from "vitest";
import { stableTestName } from "./test-name";

describe("stable test names", () => {
  it("drops a TAP time directive, a trailing duration and a random seed", () => {
    expect(stableTestName("test/index.js # time=37.64ms")).toBe("test/index.js");
    expect(stableTestName("suite > case #time=3s")).toBe("suite > case");
    expect(stableTestName("TestParse (0.00s)")).toBe("TestParse");
    expect(stableTestName("adds (12 ms)")).toBe("adds");
    expect(stableTestName("adds [1.5ms]")).toBe("adds");
    expect(stableTestName("slow thing (1m 2s)")).toBe("slow thing");
    expect(stableTestName("shuffles [seed=1234]")).toBe("shuffles");
    expect(stableTestName("shuffles (seed: -99) > inner")).toBe("shuffles > inner");
    expect(stableTestName("property holds (random seed 0x1f)")).toBe("property holds");
    expect(stableTestName("property holds seed=42")).toBe("property holds");
    expect(stableTestName("runs --seed=42")).toBe("runs");
    expect(stableTestName("a # time=1ms (2ms)")).toBe("a");
  });

  it("leaves names alone that only look alike: a number inside a name, Go's fuzz corpus seeds, an escaped '#'", () => {
    for (const name of [
      "waits 20ms",
      "times out after (100) tries",
      "FuzzParse/seed#0",
      "issue #12 stays fixed",
      "seeds the database",
      "test_math.TestArithmetic.test_even (i=1)",
      "  ",
      "# time=3ms",
    ])
      expect(stableTestName(name)).toBe(name.trim() === "" || name.startsWith("#") ? name.trim() : name);
  });
});
