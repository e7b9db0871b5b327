import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { createSnapshot } from "../../core/snapshots/snapshot-store";
import { readTestFiles, storeTestFiles } from "../../core/trial-records/test-files";
import { plainFiles } from "../../core/workspaces/workspace-files";
import { clearJunitPath, clearStaleRunnerState, findCapturedChanges } from "./captured-changes";

/** What the evaluation removes from its copy of the workspace before the test command runs. */
describe("clearing what an agent could leave for the runner", () => {
  it("removes a pytest cache (its last-failed list decides what `pytest --lf` runs), even as a symlink", async () => {
    const tree = tempDir("eval-tree");
    fs.mkdirSync(path.join(tree, ".pytest_cache/v/cache"), { recursive: true });
    fs.writeFileSync(path.join(tree, ".pytest_cache/v/cache/lastfailed"), '{"test_x.py::test_passes": true}');
    await clearStaleRunnerState({ tree });
    expect(fs.existsSync(path.join(tree, ".pytest_cache"))).toBe(false);
    const outside = tempDir("eval-outside");
    fs.symlinkSync(outside, path.join(tree, ".pytest_cache"));
    await clearStaleRunnerState({ tree });
    expect(fs.existsSync(path.join(tree, ".pytest_cache"))).toBe(false);
    expect(fs.existsSync(outside)).toBe(true);
  });

  it("clears a JUnit file, every report in a JUnit directory (nothing else), and a symlink on the way", async () => {
    const tree = tempDir("eval-tree");
    fs.writeFileSync(path.join(tree, "junit.xml"), "<testsuite/>");
    await clearJunitPath({ tree, junitPath: "junit.xml" });
    expect(fs.existsSync(path.join(tree, "junit.xml"))).toBe(false);
    fs.mkdirSync(path.join(tree, "reports"));
    fs.writeFileSync(path.join(tree, "reports/a.xml"), "<testsuite/>");
    fs.writeFileSync(path.join(tree, "reports/README.md"), "keep");
    await clearJunitPath({ tree, junitPath: "reports" });
    expect(fs.readdirSync(path.join(tree, "reports"))).toEqual(["README.md"]);
    const outside = tempDir("eval-outside");
    fs.writeFileSync(path.join(outside, "junit.xml"), "<testsuite/>");
    fs.symlinkSync(outside, path.join(tree, "out"));
    await clearJunitPath({ tree, junitPath: "out/junit.xml" });
    expect(fs.existsSync(path.join(tree, "out"))).toBe(false);
    expect(fs.existsSync(path.join(outside, "junit.xml"))).toBe(true); // never reached through the link
  });
});

describe("the tamper indicator for a captured symlink", () => {
  it("reports nothing for the link as captured, and a retargeted, replaced or deleted link", async () => {
    const project = tempDir("link-project");
    fs.mkdirSync(path.join(project, "test/fixtures"), { recursive: true });
    fs.writeFileSync(path.join(project, "test/fixtures/data.json"), "{}\n");
    fs.symlinkSync("data.json", path.join(project, "test/fixtures/latest.json"));
    const dataDir = tempDir("link-data");
    const captured = await readTestFiles({
      projectRoot: project,
      files: [{ source: "project", path: "test/fixtures/latest.json", role: "test" }],
    });
    const files = await storeTestFiles({ dataDir, studyId: "s1", files: captured });
    const { manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir });
    const tree = tempDir("link-tree");
    fs.cpSync(project, tree, { recursive: true, verbatimSymlinks: true });
    const link = path.join(tree, "test/fixtures/latest.json");
    const changes = () => findCapturedChanges({ workspace: plainFiles(tree), files, junitPath: null, manifest });

    expect(await changes()).toEqual([]);
    fs.unlinkSync(link);
    fs.symlinkSync("other.json", link);
    expect(await changes()).toEqual([{ path: "test/fixtures/latest.json", role: "test", change: "modified" }]);
    fs.unlinkSync(link);
    fs.writeFileSync(link, "{}\n");
    expect(await changes()).toEqual([{ path: "test/fixtures/latest.json", role: "test", change: "replaced" }]);
    fs.unlinkSync(link);
    expect(await changes()).toEqual([{ path: "test/fixtures/latest.json", role: "test", change: "deleted" }]);
  });
});
