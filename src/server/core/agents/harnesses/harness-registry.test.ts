import { describe, expect, it } from "vitest";
import { HARNESS_KINDS } from "../../../../shared/vocabulary";
import { agentScript, harnessModule, harnessSchema } from "../harness";

describe("harnessSchema", () => {
  it("reads the Codex and command shapes that jobs in Redis and stored manifests carry, unchanged", () => {
    const codex = {
      kind: "codex",
      model: "gpt-5-codex",
      reasoningEffort: "low",
      instructions: "Be brief.",
      overrides: ["model_verbosity=low"],
    };
    const command = { kind: "command", command: 'my-agent --task "$INVARIANT_TASK"', model: "" };
    expect(JSON.stringify(harnessSchema.parse(codex))).toBe(JSON.stringify(codex));
    expect(JSON.stringify(harnessSchema.parse(command))).toBe(JSON.stringify(command));
    // older jobs without the defaulted fields still parse
    expect(harnessSchema.parse({ kind: "codex", model: "m", reasoningEffort: "high" })).toEqual({
      kind: "codex",
      model: "m",
      reasoningEffort: "high",
      instructions: "",
      overrides: [],
    });
  });

  it("gives Claude Code and Gemini CLI their own fields, with defaults", () => {
    expect(harnessSchema.parse({ kind: "claude-code", model: "claude-sonnet-4-5" })).toEqual({
      kind: "claude-code",
      model: "claude-sonnet-4-5",
      instructions: "",
      thinkingBudget: null,
      reasoningEffort: null,
    });
    expect(harnessSchema.parse({ kind: "gemini-cli", model: "gemini-2.5-pro" })).toEqual({
      kind: "gemini-cli",
      model: "gemini-2.5-pro",
      instructions: "",
    });
    const refused = harnessSchema.safeParse({ kind: "claude-code", model: "m", thinkingBudget: -5 });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(["thinkingBudget"]);
  });

  it("has a module for every harness kind, each starting the gateway bridge before its agent", () => {
    const harnesses = [
      harnessSchema.parse({ kind: "codex", model: "m", reasoningEffort: "low" }),
      harnessSchema.parse({ kind: "claude-code", model: "m" }),
      harnessSchema.parse({ kind: "gemini-cli", model: "m" }),
      harnessSchema.parse({ kind: "command", command: "true" }),
    ];
    expect(harnesses.map((h) => harnessModule(h).kind)).toEqual([...HARNESS_KINDS]);
    for (const harness of harnesses) {
      const script = agentScript({ harness, prompt: 'it\'s "quoted" $HOME' });
      expect(script.indexOf("gateway-bridge.pl")).toBeLessThan(script.lastIndexOf("\n"));
      expect(script.split("\n").at(-1)).toMatch(/^(exec |printf )/);
    }
  });
});
