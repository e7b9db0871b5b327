import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { clearJunitPath, clearStaleRunnerState } from "./captured-changes";

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
