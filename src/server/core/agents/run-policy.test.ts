import { describe, expect, it } from "vitest";
import { harnessSchema } from "./harness";
import { runPolicy } from "./run-policy";

describe("a run's gateway policy", () => {
  it("pins a command harness to its configuration's model, as it pins Codex", () => {
    const codex = { kind: "codex", model: "gpt-5-codex", reasoningEffort: "low" } as const;
    expect(runPolicy({ harness: codex, network: "none" })).toEqual({
      model: "gpt-5-codex",
      hostedTools: false,
      apis: ["responses"],
    });
    const command = harnessSchema.parse({ kind: "command", command: "my-agent", model: "gpt-5-mini" });
    expect(runPolicy({ harness: command, network: "none" })).toEqual({
      model: "gpt-5-mini",
      hostedTools: false,
      apis: null,
    });
    expect(runPolicy({ harness: { ...command, model: "scripted:hello" }, network: "internet" })).toEqual({
      model: "hello",
      hostedTools: true,
      apis: null,
      scripted: true,
    });
  });

  it("gives a command configuration that names no model no model at all (never any model)", () => {
    // a job from before the pin carries no model: it parses to "", which the gateway matches with nothing
    const old = harnessSchema.parse({ kind: "command", command: "my-agent" });
    expect(old).toEqual({ kind: "command", command: "my-agent", model: "" });
    expect(runPolicy({ harness: old, network: "none" }).model).toBe("");
  });

  it("pins each agent harness to its provider's API; a command harness may use any", () => {
    const pinned = (kind: "codex" | "claude-code" | "gemini-cli" | "command") =>
      runPolicy({ harness: { kind, model: "m" }, network: "none" }).apis;
    expect(pinned("codex")).toEqual(["responses"]);
    expect(pinned("claude-code")).toEqual(["anthropic"]);
    expect(pinned("gemini-cli")).toEqual(["gemini"]);
    expect(pinned("command")).toBeNull();
    // a scripted model's run keeps its harness's API (the bundled model speaks all three)
    const scripted = runPolicy({ harness: { kind: "claude-code", model: "scripted:hello" }, network: "none" });
    expect(scripted).toMatchObject({ model: "hello", scripted: true, apis: ["anthropic"] });
  });
});
