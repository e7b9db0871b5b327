import { describe, expect, it } from "vitest";
import { projectSettingsSchema } from "./project-schemas";

const memory = projectSettingsSchema.shape.memoryBytes;
const swap = projectSettingsSchema.shape.swapBytes;
const messageOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message ?? "";

describe("project limits speak in GiB, like the settings form's fields", () => {
  it("explains a memory or swap value that is not a number, too small or too large in GiB", () => {
    expect(messageOf(memory.safeParse(Number.NaN))).toBe(
      "Memory must be a number of GiB, for example 4 (in bytes through the API).",
    );
    expect(messageOf(memory.safeParse(1024))).toBe(
      "At least 0.0625 GiB (64 MiB) of memory; the agent and its tools need room.",
    );
    expect(messageOf(memory.safeParse(2 * 1024 ** 4))).toBe("At most 1024 GiB (1 TiB) of memory.");
    expect(messageOf(swap.safeParse("x"))).toMatch(/^Swap must be a number of GiB/);
    expect(memory.safeParse(4 * 1024 ** 3).success).toBe(true);
  });
});
