import { describe, expect, it } from "vitest";
import { hasManifestFieldLabel, manifestFieldLabel } from "./manifest-field-labels";
import { flattenManifest, manifestDifferences, MANIFEST_VERSION, type TrialManifest } from "./trial-manifest";

/** A manifest with every field set, optional ones included. */
const full: TrialManifest = {
  version: MANIFEST_VERSION,
  study: { id: "s1", projectId: "p1" },
  environment: {
    versionId: "v1",
    version: 1,
    imageId: "sha256:aaa",
    imageDigest: "sha256:aaa",
    runtimes: [{ runtime: "node", version: "24.1.0", requested: "24", source: ".nvmrc", outcome: "installed" }],
  },
  snapshot: { id: "snap", files: 3, bytes: 100 },
  configuration: {
    harness: "command",
    model: "(command)",
    reasoningEffort: "low",
    instructions: "Be brief.",
    overrides: ["model_verbosity=low"],
    command: "./agent.sh",
  },
  taskPrompt: "Fix it.",
  testCommand: "node --test",
  junitPath: "junit.xml",
  testFiles: [{ path: "test/a.test.js", sha256: "a".repeat(64), bytes: 10, role: "test", kind: "file" }],
  limits: { cpus: 1, memoryBytes: 1024, swapBytes: 0, pids: 64, network: "none", allowHostedTools: false },
  concurrency: 2,
  agentTimeoutSec: 60,
  evalTimeoutSec: 60,
  tokenBudget: 1000,
  attempt: 1,
  followUp: { parentTrialId: "t0", agentImage: "sha256:bbb", prompt: "- src/a.ts:3 — off by one" },
  harnessVersion: "0.171.0",
  reportedModel: "gpt-5-2026-01-01",
  workspaceKind: "overlay",
};

describe("manifestFieldLabel", () => {
  it("has words for every field of a manifest, and none of them is the raw key", () => {
    const paths = [...flattenManifest(full).keys(), ...flattenManifest({ ...full, testFiles: [] }).keys()];
    expect(paths.filter((path) => !hasManifestFieldLabel(path))).toEqual([]);
    for (const path of paths) expect(manifestFieldLabel(path)).not.toBe(path);
  });

  it("reads the compare page's keys as words, captured files by their path", () => {
    expect(manifestFieldLabel("configuration.model")).toBe("Model");
    expect(manifestFieldLabel("reportedModel")).toBe("Model the provider reported");
    expect(manifestFieldLabel("configuration.command")).toBe("Agent command");
    expect(manifestFieldLabel("testFiles[test/a.test.js].sha256")).toBe("Captured file test/a.test.js: SHA-256");
    // a field added later without words still reads as words
    expect(manifestFieldLabel("limits.gpuCount")).toBe("Limits gpu count");
  });

  it("labels what differed between two command configurations", () => {
    const other: TrialManifest = {
      ...full,
      configuration: { ...full.configuration, command: "./other.sh" },
      reportedModel: null,
    };
    expect(manifestDifferences([full, other]).map((row) => manifestFieldLabel(row.path))).toEqual([
      "Agent command",
      "Model the provider reported",
    ]);
  });
});
