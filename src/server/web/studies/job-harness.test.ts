import { describe, expect, it } from "vitest";
import { harnessSchema } from "../../core/agents/harness";
import { jobHarness, type HarnessSource } from "./job-harness";

const row = (edit: Partial<HarnessSource>): HarnessSource => ({
  harness: "codex",
  model: "gpt-5",
  reasoningEffort: "minimal",
  instructions: "Be brief.",
  overrides: ["model_verbosity=low"],
  command: null,
  ...edit,
});

describe("a configuration's job harness", () => {
  it("gives each kind exactly the fields its CLI takes, and the job schema accepts them", () => {
    const harnesses = [
      jobHarness(row({})),
      jobHarness(row({ harness: "claude-code", model: "claude-sonnet-4-5", reasoningEffort: "xhigh" })),
      jobHarness(row({ harness: "gemini-cli", model: "gemini-2.5-pro" })),
      jobHarness(row({ harness: "command", model: "", command: "./agent.sh" })),
    ];
    expect(harnesses).toEqual([
      {
        kind: "codex",
        model: "gpt-5",
        reasoningEffort: "minimal",
        instructions: "Be brief.",
        overrides: ["model_verbosity=low"],
      },
      { kind: "claude-code", model: "claude-sonnet-4-5", reasoningEffort: "xhigh", instructions: "Be brief." },
      { kind: "gemini-cli", model: "gemini-2.5-pro", instructions: "Be brief." },
      { kind: "command", command: "./agent.sh", model: "" },
    ]);
    for (const harness of harnesses) expect(harnessSchema.safeParse(harness).success).toBe(true);
  });

  it("runs Claude Code at medium when the row holds an effort Claude Code does not take", () => {
    expect(jobHarness(row({ harness: "claude-code", reasoningEffort: "minimal" }))).toMatchObject({
      reasoningEffort: "medium",
    });
  });
});
