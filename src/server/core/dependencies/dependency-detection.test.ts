import { describe, expect, it } from "vitest";
import { detectDependencyStep, outputFolderProblem } from "./dependency-detection";

describe("dependency detection", () => {
  it("proposes each ecosystem's install from its manifests, lockfiles first", () => {
    expect(detectDependencyStep(["package.json", "package-lock.json", "README.md"])).toEqual({
      kind: "npm",
      command: "npm ci",
      outputs: ["node_modules"],
      manifests: ["package.json", "package-lock.json"],
    });
    expect(detectDependencyStep(["package.json", "npm-shrinkwrap.json"])?.manifests).toEqual([
      "package.json",
      "npm-shrinkwrap.json",
    ]);
    expect(detectDependencyStep(["package.json", "pnpm-lock.yaml"])).toMatchObject({ kind: "pnpm" });
    expect(detectDependencyStep(["package.json", "yarn.lock"])).toMatchObject({
      kind: "yarn",
      command: expect.stringContaining("yarn install --frozen-lockfile") as unknown,
    });
    expect(detectDependencyStep(["package.json"])).toMatchObject({ kind: "npm", command: "npm install" });
    expect(detectDependencyStep(["requirements.txt", "requirements-dev.txt", "app.py"])).toEqual({
      kind: "python",
      command: "python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt -r requirements.txt",
      outputs: [".venv"],
      manifests: ["requirements-dev.txt", "requirements.txt"],
    });
    expect(detectDependencyStep(["pyproject.toml", "uv.lock"])).toMatchObject({
      kind: "python",
      manifests: ["pyproject.toml", "uv.lock"],
      command: expect.stringContaining("tomllib") as unknown,
    });
    expect(detectDependencyStep(["go.mod", "go.sum"])).toMatchObject({
      kind: "go",
      command: "go mod download",
      outputs: [],
    });
    expect(detectDependencyStep(["Cargo.toml", "Cargo.lock"])).toMatchObject({ kind: "cargo", command: "cargo fetch" });
    expect(detectDependencyStep(["README.md", "main.c"])).toBeNull();
  });

  it("accepts only output folders that snapshots and diffs always leave out", () => {
    expect(outputFolderProblem("node_modules")).toBeNull();
    expect(outputFolderProblem(".venv")).toBeNull();
    expect(outputFolderProblem("packages/web/node_modules")).toBeNull();
    expect(outputFolderProblem("vendor")).toMatch(/vendor cannot hold installed dependencies.*node_modules/);
  });
});
