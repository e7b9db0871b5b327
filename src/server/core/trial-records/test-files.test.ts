import { execFileSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { readTestFiles } from "./test-files";

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
