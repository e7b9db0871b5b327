import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { fromText } from "../../../lib/files/byte-path";
import { diffWorkspace } from "../../core/diffs/workspace-diff";
import { createSnapshot } from "../../core/snapshots/snapshot-store";
import { createWorkspace } from "../../core/workspaces/workspace-store";
import { readTestFiles, storeTestFiles } from "../../core/trial-records/test-files";
import { leaveOutOfCopy, pathsLeftOut, prepareEvaluationLayer } from "./evaluation-layer";

const file = { sha256: "0".repeat(64), bytes: 1, role: "test" as const };

/** What the evaluation takes from an agent's tree: exactly what the diff shows. */
describe("what the evaluation leaves out of the agent's tree", () => {
  it("is every path the diff left out or skipped, but the root .git and the captured files", () => {
    const left = pathsLeftOut({
      diff: {
        leftOut: [".git", "node_modules", "src/.gitignore", "src/sum.js", "tests/new.test.js", "sub/.git"],
        skipped: [{ path: "fifo", kind: "fifo" }],
      },
      files: [{ ...file, path: "tests/new.test.js" }],
    });
    expect(left).toEqual(["fifo", "node_modules", "src/.gitignore", "src/sum.js", "sub/.git"]);
  });

  it("takes from a copy what a self-ignoring .gitignore hid from the diff (a read-only directory too)", async () => {
    const project = tempDir("eval-project");
    fs.mkdirSync(path.join(project, "src/sum"), { recursive: true });
    fs.writeFileSync(path.join(project, "src/sum/index.js"), "exports.sum = (a, b) => a + b;\n");
    const dataDir = tempDir("eval-data");
    const { manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir });
    const tree = (await createWorkspace({ dataDir, snapshotId: manifest.id })).path;
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
      fs.writeFileSync(path.join(tree, rel), text);
    };
    write("src/sum/index.js", "broken\n");
    write("src/sum.js", "forger\n");
    write("src/.gitignore", "sum.js\n.gitignore\n");
    write("node_modules/dep/locked/index.js", "planted\n");
    fs.chmodSync(path.join(tree, "node_modules/dep/locked"), 0o500);
    const diff = await diffWorkspace({ dataDir, manifest, workspaceRoot: tree });
    expect(diff.changes.map((change) => change.path)).toEqual([fromText("src/sum/index.js")]);
    expect(diff.leftOut).toEqual([".git", "node_modules", "src/.gitignore", "src/sum.js"]);
    await leaveOutOfCopy({ tree, paths: pathsLeftOut({ diff, files: [] }) });
    expect(fs.readdirSync(tree).sort()).toEqual([".git", "src"]);
    expect(fs.readdirSync(path.join(tree, "src")).sort()).toEqual(["sum"]);
  });
});

describe("captured symlinks in an evaluation layer", () => {
  it("are written to the fresh layer as the captured links, over a file the agent left at their path", async () => {
    const project = tempDir("eval-link-project");
    fs.mkdirSync(path.join(project, "test/fixtures"), { recursive: true });
    fs.writeFileSync(path.join(project, "test/fixtures/data.json"), "{}\n");
    fs.symlinkSync("data.json", path.join(project, "test/fixtures/latest.json"));
    const dataDir = tempDir("eval-link-data");
    const captured = await readTestFiles({
      projectRoot: project,
      files: [{ source: "project", path: "test/fixtures/latest.json", role: "test" }],
    });
    const files = await storeTestFiles({ dataDir, studyId: "s1", files: captured });
    const agent = tempDir("eval-link-agent");
    fs.mkdirSync(path.join(agent, "test/fixtures"), { recursive: true });
    fs.writeFileSync(path.join(agent, "test/fixtures/latest.json"), '{"forged":true}\n');
    const upper = tempDir("eval-link-upper");
    await prepareEvaluationLayer({ dataDir, studyId: "s1", upper, below: [agent, project], files });
    const restored = path.join(upper, "test/fixtures/latest.json");
    expect(fs.lstatSync(restored).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(restored)).toBe("data.json");
  });
});
