import { describe, expect, it } from "vitest";
import { diffManifests, manifestDifferences, MANIFEST_VERSION, type TrialManifest } from "./trial-manifest";

const manifest = (edit: (m: TrialManifest) => void = () => undefined): TrialManifest => {
  const m: TrialManifest = {
    version: MANIFEST_VERSION,
    study: { id: "s1", projectId: "p1" },
    environment: { versionId: "v1", version: 1, imageId: "sha256:aaa", imageDigest: "sha256:aaa", runtimes: [] },
    snapshot: { id: "snap", files: 3, bytes: 100 },
    configuration: {
      harness: "codex",
      model: "gpt-5",
      reasoningEffort: "low",
      instructions: "",
      overrides: [],
      command: null,
    },
    taskPrompt: "Fix it.",
    testCommand: "node --test",
    junitPath: null,
    testFiles: [{ path: "test/a.test.js", sha256: "a".repeat(64), bytes: 10, role: "test" }],
    limits: { cpus: 1, memoryBytes: 1024, swapBytes: 0, pids: 64, network: "none", allowHostedTools: false },
    concurrency: 2,
    agentTimeoutSec: 60,
    evalTimeoutSec: 60,
    tokenBudget: 1000,
    attempt: 1,
    harnessVersion: "0.171.0",
    reportedModel: null,
    workspaceKind: "overlay",
  };
  edit(m);
  return m;
};

describe("what differed between manifests", () => {
  it("names each differing field by its path, captured files by their path", () => {
    const b = manifest((m) => {
      m.configuration.model = "o4-mini";
      m.configuration.overrides = ["model_verbosity=low"];
      m.limits.cpus = 2;
      m.testFiles[0]!.sha256 = "b".repeat(64);
      m.harnessVersion = null;
    });
    expect(diffManifests(manifest(), b)).toEqual([
      { path: "configuration.model", a: "gpt-5", b: "o4-mini" },
      { path: "configuration.overrides", a: "[]", b: '["model_verbosity=low"]' },
      { path: "testFiles[test/a.test.js].sha256", a: "a".repeat(64), b: "b".repeat(64) },
      { path: "limits.cpus", a: "1", b: "2" },
      { path: "harnessVersion", a: "0.171.0", b: "—" },
    ]);
  });

  it("names the harness by its agent, with the version each CLI reported", () => {
    const claude = manifest((m) => {
      m.configuration.harness = "claude-code";
      m.configuration.model = "claude-sonnet-4-5";
      m.harnessVersion = "2.1.332";
    });
    expect(diffManifests(manifest(), claude)).toEqual([
      { path: "configuration.harness", a: "Codex", b: "Claude Code" },
      { path: "configuration.model", a: "gpt-5", b: "claude-sonnet-4-5" },
      { path: "harnessVersion", a: "0.171.0", b: "2.1.332" },
    ]);
  });

  it("leaves out the attempt and the study id unless asked, and finds nothing between equal manifests", () => {
    const other = manifest((m) => {
      m.attempt = 2;
      m.study.id = "s2";
    });
    expect(diffManifests(manifest(), other)).toEqual([]);
    expect(diffManifests(manifest(), other, { includeIdentity: true }).map((d) => d.path)).toEqual([
      "study.id",
      "attempt",
    ]);
    expect(manifestDifferences([manifest(), manifest(), manifest((m) => (m.concurrency = 3))])).toEqual([
      { path: "concurrency", values: ["2", "2", "3"] },
    ]);
  });
});
