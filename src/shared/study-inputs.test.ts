import { describe, expect, it } from "vitest";
import { createStudyInputSchema } from "./study-inputs";

const valid = {
  projectId: "p1",
  title: "Calendar",
  taskPrompt: "Implement the calendar.",
  testCommand: "node --test",
  configurations: [{ harness: "codex", model: "gpt-x", reasoningEffort: "low", repeats: 1 }],
};

function fieldErrors(input: unknown): Record<string, string[]> {
  const result = createStudyInputSchema.safeParse(input);
  if (result.success) return {};
  const byField: Record<string, string[]> = {};
  for (const issue of result.error.issues) (byField[issue.path.join(".")] ??= []).push(issue.message);
  return byField;
}

describe("the study form's schema", () => {
  it("accepts a complete study and fills the defaults", () => {
    const parsed = createStudyInputSchema.parse(valid);
    expect(parsed).toMatchObject({
      junitPath: null,
      testFiles: [],
      concurrency: null,
      agentTimeoutSec: 1800,
      evalTimeoutSec: 600,
    });
    expect(parsed.configurations[0]).toMatchObject({ instructions: "", overrides: [], command: "" });
  });

  it("reports every problem of a row at once, each under its own field", () => {
    const errors = fieldErrors({
      ...valid,
      configurations: [
        { harness: "codex", model: "  ", repeats: 0 },
        { harness: "command", command: "", repeats: 2 },
      ],
    });
    expect(errors["configurations.0.model"]).toEqual(["Name the model this configuration uses."]);
    expect(errors["configurations.0.repeats"]).toEqual(["At least 1 repeat."]);
    expect(errors["configurations.1.command"]?.[0]).toMatch(/Give the agent command line/);
  });

  it("asks Claude Code and Gemini CLI rows for a model, and Claude Code for one of its own efforts", () => {
    const errors = fieldErrors({
      ...valid,
      configurations: [
        { harness: "claude-code", model: "", reasoningEffort: "minimal", repeats: 1 },
        { harness: "gemini-cli", model: " ", repeats: 1 },
        { harness: "claude-code", model: "claude-sonnet-4-5", reasoningEffort: "xhigh", repeats: 1 },
      ],
    });
    expect(errors["configurations.0.model"]).toEqual(["Name the model this configuration uses."]);
    expect(errors["configurations.0.reasoningEffort"]).toEqual([
      "Claude Code's effort is one of low, medium, high, xhigh.",
    ]);
    expect(errors["configurations.1.model"]).toEqual(["Name the model this configuration uses."]);
    expect(Object.keys(errors).filter((field) => field.startsWith("configurations.2"))).toEqual([]);
  });

  it("refuses unsafe or duplicate test file paths, too many trials, and out-of-range limits", () => {
    const errors = fieldErrors({
      ...valid,
      testFiles: [
        { source: "project", path: "../etc/passwd" },
        { source: "project", path: "/abs.js" },
        { source: "project", path: ".git/config" },
        { source: "project", path: "test/a.js" },
        { source: "project", path: "test/a.js" },
        { source: "upload", path: "b.js", contentBase64: "not base64!" },
      ],
      configurations: Array.from({ length: 11 }, () => ({ harness: "codex", model: "m", repeats: 20 })),
      concurrency: 0,
      evalTimeoutSec: 1,
    });
    expect(errors["testFiles.0.path"]?.[0]).toMatch(/\.\. segments/);
    expect(errors["testFiles.1.path"]?.[0]).toMatch(/relative to the project root/);
    expect(errors["testFiles.2.path"]?.[0]).toMatch(/\.git/);
    expect(errors["testFiles.4.path"]).toEqual(["test/a.js is listed twice."]);
    expect(errors["testFiles.5.contentBase64"]?.[0]).toMatch(/base64/);
    expect(errors.configurations?.[0]).toMatch(/220 trials; a study has at most 200/);
    expect(errors.concurrency).toEqual(["At least 1 trial at a time."]);
    expect(errors.evalTimeoutSec).toEqual(["At least 5 seconds."]);
  });
});
