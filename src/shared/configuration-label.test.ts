import { describe, expect, it } from "vitest";
import {
  commandWords,
  configurationDescription,
  configurationLabel,
  configurationLabels,
  configurationLabelSchema,
  withLabels,
} from "./configuration-label";

const codex = (model: string, reasoningEffort = "high") => ({ harness: "codex", model, reasoningEffort });
const command = (line: string) => ({
  harness: "command",
  model: "(command)",
  reasoningEffort: "medium",
  command: line,
});

describe("configurationLabel", () => {
  it("names a Codex configuration by model and effort, and a command one by its command", () => {
    expect(configurationLabel(codex("gpt-5"))).toBe("gpt-5 · high");
    expect(configurationLabel(codex("  "))).toBe("no model · high");
    expect(configurationLabel(command("sed -i s/x/y/ src/a.js"))).toBe("sed -i s/x/y/ src/a.js");
    expect(configurationLabel(command("  node\n  agent.js\t--fast "))).toBe("node agent.js --fast");
    expect(configurationLabel(command(""))).toBe("command");
  });

  it("names Claude Code and Gemini CLI configurations by agent, model and (Claude's) effort", () => {
    expect(configurationLabel({ harness: "claude-code", model: "claude-sonnet-4-5", reasoningEffort: "high" })).toBe(
      "Claude Code · claude-sonnet-4-5 · high",
    );
    expect(configurationLabel({ harness: "gemini-cli", model: "gemini-2.5-pro", reasoningEffort: "medium" })).toBe(
      "Gemini CLI · gemini-2.5-pro",
    );
    expect(configurationLabel({ harness: "gemini-cli", model: "", reasoningEffort: "medium" })).toBe(
      "Gemini CLI · no model",
    );
  });

  it("names Codex too in a study beside other agents, and describes each in full", () => {
    const study = [
      { ...codex("gpt-5"), choice: 1 },
      { harness: "claude-code", model: "claude-sonnet-4-5", reasoningEffort: "high", choice: 2 },
      { ...command("./x.sh"), choice: 3 },
    ];
    expect([...configurationLabels(study).values()]).toEqual([
      "Codex · gpt-5 · high",
      "Claude Code · claude-sonnet-4-5 · high",
      "./x.sh",
    ]);
    // Codex beside command lines only: as before
    expect([...configurationLabels([study[0]!, study[2]!]).values()]).toEqual(["gpt-5 · high", "./x.sh"]);
    expect(configurationDescription(study[1]!)).toBe("Claude Code claude-sonnet-4-5 · effort high");
    expect(
      configurationDescription({ harness: "gemini-cli", model: "gemini-2.5-pro", reasoningEffort: "medium" }),
    ).toBe("Gemini CLI gemini-2.5-pro");
    expect(configurationDescription(codex("gpt-5"))).toBe("Codex gpt-5 · effort high");
  });

  it("shortens a long command to its first words with an ellipsis", () => {
    const long = "python3 scripts/agent.py --model local --temperature 0.2 --max-steps 40";
    const label = configurationLabel(command(long));
    expect(label).toBe("python3 scripts/agent.py --model local…");
    expect(label.length).toBeLessThanOrEqual(40);
    // one word longer than the limit is cut inside it
    expect(commandWords(`./${"a".repeat(60)}`)).toBe(`./${"a".repeat(37)}…`);
  });

  it("prefers the explicit label, ignoring an empty one", () => {
    expect(configurationLabel({ ...command("./x.sh"), customLabel: "baseline agent" })).toBe("baseline agent");
    expect(configurationLabel({ ...codex("gpt-5"), customLabel: "  " })).toBe("gpt-5 · high");
    expect(configurationLabel({ ...codex("gpt-5"), customLabel: null })).toBe("gpt-5 · high");
  });
});

describe("configurationLabels", () => {
  it("appends #2, #3 to the later of colliding labels, in order, and keeps distinct ones", () => {
    const labels = configurationLabels([
      { choice: 1, ...codex("gpt-5") },
      { choice: 2, ...codex("gpt-5") },
      { choice: 3, ...command("sed -i s/x/y/ src/a.js") },
      { choice: 4, ...command("sed -i s/x/y/ src/b.js") },
      { choice: 5, ...codex("gpt-5") },
    ]);
    expect([...labels.values()]).toEqual([
      "gpt-5 · high",
      "gpt-5 · high #2",
      "sed -i s/x/y/ src/a.js",
      "sed -i s/x/y/ src/b.js",
      "gpt-5 · high #3",
    ]);
  });

  it("tells apart long commands that share their first words, and explicit labels that collide", () => {
    const prefix = "python3 scripts/agent.py --model local --temperature";
    const labels = configurationLabels([
      { choice: 1, ...command(`${prefix} 0.2`) },
      { choice: 2, ...command(`${prefix} 0.8`) },
      { choice: 3, ...codex("gpt-5"), customLabel: "mine" },
      { choice: 4, ...codex("o3"), customLabel: "mine" },
      // an explicit label that reads like a suffixed one does not take another's place
      { choice: 5, ...codex("o4"), customLabel: "mine #2" },
    ]);
    expect(labels.get(1)).toBe("python3 scripts/agent.py --model local…");
    expect(labels.get(2)).toBe("python3 scripts/agent.py --model local… #2");
    expect(labels.get(3)).toBe("mine");
    expect(labels.get(4)).toBe("mine #2");
    expect(labels.get(5)).toBe("mine #2 #2");
    expect(new Set(labels.values()).size).toBe(5);
  });

  it("withLabels adds the study-wide label to each configuration", () => {
    const [a, b] = withLabels([
      { choice: 1, ...command("./agent.sh") },
      { choice: 2, ...command("./agent.sh") },
    ]);
    expect([a?.label, b?.label, b?.command]).toEqual(["./agent.sh", "./agent.sh #2", "./agent.sh"]);
  });
});

describe("configurationLabelSchema", () => {
  it("takes up to 60 characters of one line, trimmed, empty by default", () => {
    expect(configurationLabelSchema.parse(undefined)).toBe("");
    expect(configurationLabelSchema.parse("  fast agent ")).toBe("fast agent");
    expect(configurationLabelSchema.parse("x".repeat(60))).toHaveLength(60);
    expect(configurationLabelSchema.safeParse("x".repeat(61)).error?.issues[0]?.message).toBe(
      "A label is at most 60 characters.",
    );
    expect(configurationLabelSchema.safeParse("two\nlines").error?.issues[0]?.message).toMatch(/one line/);
  });
});
