import { execFileSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { expandTestFiles } from "./test-file-patterns";
import { readTestFiles, restoreTestFiles, storeTestFiles } from "./test-files";

/**
 * Capturing a test file from the project races with whoever else writes there: the path is checked
 * with lstat first, and a FIFO or a symlink swapped in right after those checks must neither hang
 * the read nor be followed. The swap happens inside the last lstat, the worst moment.
 */
afterEach(() => {
  vi.restoreAllMocks();
});

function project(): string {
  const root = tempDir("capture");
  fs.mkdirSync(path.join(root, "test"));
  fs.writeFileSync(path.join(root, "test/a.test.js"), "test('a', () => {});\n");
  return root;
}

/** Calls `swap` right after the real lstat of the test file has said "regular file". */
function swapAfterCheck(file: string, swap: () => void): void {
  const lstat = fsp.lstat.bind(fsp);
  vi.spyOn(fsp, "lstat").mockImplementation(async (target: fs.PathLike) => {
    const stat = await lstat(target);
    if (String(target) === file) swap();
    return stat;
  });
}

/** Settles with what `promise` did, or "hung" after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "hung"> {
  return Promise.race([promise, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), ms))]);
}

describe("capturing a test file that is swapped while it is read", () => {
  it("refuses a FIFO swapped in after the checks instead of hanging on it", async () => {
    const root = project();
    const file = path.join(root, "test/a.test.js");
    swapAfterCheck(file, () => {
      fs.unlinkSync(file);
      execFileSync("mkfifo", [file]);
    });
    const outcome = await within(
      readTestFiles({ projectRoot: root, files: [{ source: "project", path: "test/a.test.js", role: "test" }] }).then(
        () => "read",
        (error: unknown) => error,
      ),
      3000,
    );
    if (outcome === "hung") {
      // let the blocked open finish so the worker can exit, then fail
      fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    }
    expect(outcome).toMatchObject({ code: "BAD_REQUEST", field: "testFiles.0.path" });
  });

  it("refuses a symlink to a file outside the project swapped in after the checks", async () => {
    const root = project();
    const outside = path.join(tempDir("capture-outside"), "secret.txt");
    fs.writeFileSync(outside, "not the project's\n");
    const file = path.join(root, "test/a.test.js");
    swapAfterCheck(file, () => {
      fs.unlinkSync(file);
      fs.symlinkSync(outside, file);
    });
    await expect(
      readTestFiles({ projectRoot: root, files: [{ source: "project", path: "test/a.test.js", role: "test" }] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", field: "testFiles.0.path" });
  });
});

describe("symbolic links among the captured files", () => {
  function linkedProject(): string {
    const root = tempDir("links");
    fs.mkdirSync(path.join(root, "test/fixtures"), { recursive: true });
    fs.mkdirSync(path.join(root, "shared"));
    fs.writeFileSync(path.join(root, "test/fixtures/data.json"), '{"n":1}\n');
    fs.writeFileSync(path.join(root, "shared/helpers.js"), "module.exports = {};\n");
    fs.writeFileSync(path.join(root, "test/a.test.js"), "test('a', () => {});\n");
    fs.symlinkSync("data.json", path.join(root, "test/fixtures/latest.json"));
    fs.symlinkSync("../shared", path.join(root, "test/shared"));
    return root;
  }

  it("captures links inside test/ as links and restores them as links into a trial's tree", async () => {
    const root = linkedProject();
    const expanded = await expandTestFiles({
      projectRoot: root,
      files: [{ source: "project", path: "test/", role: "test" }],
      junitPath: null,
    });
    expect(expanded.map((file) => file.path)).toEqual([
      "test/a.test.js",
      "test/fixtures/data.json",
      "test/fixtures/latest.json",
      "test/shared",
    ]);
    const captured = await readTestFiles({ projectRoot: root, files: expanded });
    expect(captured.map((file) => file.kind)).toEqual(["file", "file", "symlink", "symlink"]);
    const dataDir = tempDir("links-data");
    const views = await storeTestFiles({ dataDir, studyId: "s1", files: captured });
    expect(views.find((view) => view.path === "test/shared")).toMatchObject({ kind: "symlink", bytes: 9 });

    // the trial's tree: the agent replaced the link with a file and the folder link with a real folder
    const tree = tempDir("links-tree");
    fs.mkdirSync(path.join(tree, "test/fixtures"), { recursive: true });
    fs.writeFileSync(path.join(tree, "test/fixtures/latest.json"), '{"n":"forged"}\n');
    fs.mkdirSync(path.join(tree, "test/shared"));
    fs.mkdirSync(path.join(tree, "shared"));
    fs.writeFileSync(path.join(tree, "shared/helpers.js"), "module.exports = {};\n");
    await restoreTestFiles({ dataDir, studyId: "s1", tree, files: views });
    expect(fs.lstatSync(path.join(tree, "test/fixtures/latest.json")).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(path.join(tree, "test/fixtures/latest.json"))).toBe("data.json");
    expect(fs.readFileSync(path.join(tree, "test/fixtures/latest.json"), "utf8")).toBe('{"n":1}\n');
    expect(fs.readlinkSync(path.join(tree, "test/shared"))).toBe("../shared");
    expect(fs.existsSync(path.join(tree, "test/shared/helpers.js"))).toBe(true);
  });

  it("captures a link named on its own", async () => {
    const root = linkedProject();
    const [captured] = await readTestFiles({
      projectRoot: root,
      files: [{ source: "project", path: "test/fixtures/latest.json", role: "test" }],
    });
    expect(captured).toMatchObject({ kind: "symlink", data: Buffer.from("data.json") });
  });

  it("refuses a link whose target leaves the project, naming the link and its target", async () => {
    const root = linkedProject();
    fs.symlinkSync("../../../etc/passwd", path.join(root, "test/fixtures/passwd"));
    const expanded = await expandTestFiles({
      projectRoot: root,
      files: [{ source: "project", path: "test/**", role: "test" }],
      junitPath: null,
    });
    const refused = await readTestFiles({ projectRoot: root, files: expanded }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "BAD_REQUEST", field: "testFiles.0.path" });
    expect((refused as Error).message).toMatch(
      /^test\/fixtures\/passwd is a symbolic link to \.\.\/\.\.\/\.\.\/etc\/passwd, which resolves outside the project root/,
    );
  });

  it("refuses an absolute link, even to a file of the project on this host", async () => {
    const root = linkedProject();
    fs.symlinkSync(path.join(root, "shared/helpers.js"), path.join(root, "test/helpers.js"));
    const refused = await readTestFiles({
      projectRoot: root,
      files: [{ source: "project", path: "test/helpers.js", role: "test" }],
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "BAD_REQUEST", field: "testFiles.0.path" });
    expect((refused as Error).message).toContain(
      `test/helpers.js is a symbolic link to the absolute path ${root}/shared/helpers.js`,
    );
  });
});
