import { describe, expect, it } from "vitest";
import { dependencyHint, missingModuleLine } from "./dependency-hint";

describe("dependency hint", () => {
  it("finds what each toolchain prints for a missing dependency", () => {
    expect(missingModuleLine("Error: Cannot find module 'vitest/config'\nRequire stack:\n")).toBe(
      "Error: Cannot find module 'vitest/config'",
    );
    expect(missingModuleLine("E   ModuleNotFoundError: No module named 'yaml'\n1 error in 0.1s\n")).toBe(
      "E   ModuleNotFoundError: No module named 'yaml'",
    );
    expect(missingModuleLine("sh: 1: jest: not found\n")).toBe("sh: 1: jest: not found");
    expect(missingModuleLine("Error: Failed to load url dayjs (resolved id: dayjs) in /workspace/a.test.js\n")).toMatch(
      /Failed to load url dayjs/,
    );
    expect(dependencyHint("E   ModuleNotFoundError: No module named 'yaml'\n")).toMatch(/dependency step/);
  });

  it("leaves the project's own missing files alone, and clean output", () => {
    expect(missingModuleLine("Error: Cannot find module './calendar'\n")).toBeNull();
    expect(missingModuleLine("Tests  3 passed (3)\n")).toBeNull();
    expect(dependencyHint("")).toBeNull();
  });
});
