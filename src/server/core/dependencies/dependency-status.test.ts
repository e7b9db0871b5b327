import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import type { DependencyStep, InstalledDependencies } from "../../../shared/dependency-schemas";
import { dependencyWarning, manifestChanges, rootFiles } from "./dependency-status";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const step: DependencyStep = {
  kind: "npm",
  command: "npm ci",
  outputs: ["node_modules"],
  manifests: ["package.json", "package-lock.json"],
};

function project(files: Record<string, string>): string {
  const root = tempDir("deps-status");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return root;
}

describe("dependency status", () => {
  it("finds changed, removed and added manifests against the installed hashes", async () => {
    const installed: InstalledDependencies = {
      dir: "dependencies/deps-000000000000000000000000",
      kind: "npm",
      command: "npm ci",
      outputs: ["node_modules"],
      manifests: [
        { path: "package.json", sha256: sha("{}") },
        { path: "package-lock.json", sha256: null },
        { path: "old.txt", sha256: sha("x") },
      ],
    };
    const root = project({ "package.json": "{}", "package-lock.json": "{ }" });
    expect(await manifestChanges({ root, installed, step })).toEqual([
      { path: "package-lock.json", change: "added" },
      { path: "old.txt", change: "removed" },
    ]);
    fs.writeFileSync(path.join(root, "package.json"), '{"dependencies":{}}');
    expect(await manifestChanges({ root, installed, step })).toContainEqual({
      path: "package.json",
      change: "changed",
    });
    expect((await rootFiles(root)).sort()).toEqual(["package-lock.json", "package.json"]);
  });

  it("says what to do: install when nothing is installed, prepare again when a manifest changed, nothing when in step", () => {
    expect(dependencyWarning({ step, installed: null, changes: [] })).toMatch(
      /^package\.json and package-lock\.json are here but the environment has no installed dependencies/,
    );
    const installed = { dir: "d", kind: "npm" as const, command: "npm ci", outputs: [], manifests: [] };
    expect(dependencyWarning({ step, installed, changes: [{ path: "package-lock.json", change: "changed" }] })).toBe(
      "package-lock.json changed since the dependencies were installed — prepare again (Dependencies → Install dependencies on the project page).",
    );
    expect(dependencyWarning({ step, installed, changes: [] })).toBeNull();
    expect(dependencyWarning({ step: null, installed: null, changes: [] })).toBeNull();
  });
});
