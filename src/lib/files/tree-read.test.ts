import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/support/temp";
import { FileTooLargeError, NotRegularFileError } from "./file-read";
import { PathThroughSymlinkError, readFileInsideTree } from "./tree-read";

describe("readFileInsideTree", () => {
  const root = tempDir("tree-read");
  const outside = tempDir("tree-read-outside");
  fs.mkdirSync(path.join(root, "test"));
  fs.writeFileSync(path.join(root, "test/a.js"), "a");
  fs.writeFileSync(path.join(outside, "secret.js"), "secret");
  fs.symlinkSync(outside, path.join(root, "linked"));
  fs.symlinkSync(path.join(outside, "secret.js"), path.join(root, "test/link.js"));
  execFileSync("mkfifo", [path.join(root, "test/fifo.js")]);
  fs.writeFileSync(path.join(root, "big.js"), Buffer.alloc(2048));

  it("reads a regular file inside the tree", async () => {
    expect((await readFileInsideTree({ root, rel: "test/a.js", maxBytes: 10 })).toString()).toBe("a");
  });

  it("refuses a symlinked directory on the way and a symlink in the file's place", async () => {
    await expect(readFileInsideTree({ root, rel: "linked/secret.js", maxBytes: 100 })).rejects.toBeInstanceOf(
      PathThroughSymlinkError,
    );
    await expect(readFileInsideTree({ root, rel: "test/link.js", maxBytes: 100 })).rejects.toMatchObject({
      reason: "symlink",
    });
  });

  it("does not hang on a FIFO (O_NONBLOCK) and refuses it as not a regular file", async () => {
    await expect(readFileInsideTree({ root, rel: "test/fifo.js", maxBytes: 100 })).rejects.toBeInstanceOf(
      NotRegularFileError,
    );
  });

  it("stops at maxBytes", async () => {
    await expect(readFileInsideTree({ root, rel: "big.js", maxBytes: 1024 })).rejects.toBeInstanceOf(FileTooLargeError);
  });
});
