import { describe, expect, it } from "vitest";
import type { FileChange, FileState } from "../../core/diffs/workspace-diff";
import { fileItem, kindOf, languageOf, pathKeyOf, pathOfKey } from "./review-files";

const file = (mode: "100644" | "100755" = "100644", sha256 = "a"): FileState => ({
  type: "file",
  mode,
  size: 1,
  sha256,
});
const link: FileState = { type: "symlink", mode: "120000", size: 1, sha256: "l", target: "x" };

function change(overrides: Partial<FileChange>): FileChange {
  return {
    path: "a.ts",
    status: "modified",
    before: file(),
    after: file("100644", "b"),
    contentChanged: true,
    modeChanged: false,
    typeChanged: false,
    binary: false,
    insertions: 1,
    deletions: 1,
    patch: null,
    patchTruncated: false,
    ...overrides,
  };
}

describe("review files", () => {
  it("name each change by its most telling kind", () => {
    expect(kindOf(change({}))).toBe("modified");
    expect(kindOf(change({ status: "added", before: null }))).toBe("added");
    expect(kindOf(change({ status: "deleted", after: null }))).toBe("deleted");
    expect(kindOf(change({ after: file("100755"), contentChanged: false, modeChanged: true }))).toBe("mode");
    expect(kindOf(change({ after: file("100755", "b"), modeChanged: true }))).toBe("modified");
    expect(kindOf(change({ binary: true }))).toBe("binary");
    expect(kindOf(change({ status: "added", before: null, after: link }))).toBe("symlink");
    expect(kindOf(change({ after: link, typeChanged: true }))).toBe("type-change");
  });

  it("say when a file has no line counts", () => {
    expect(fileItem(change({ patchTruncated: true, insertions: 0, deletions: 0 })).linesCounted).toBe(false);
    expect(fileItem(change({ patchTruncated: true, insertions: 500 })).linesCounted).toBe(true);
  });

  it("round-trip any file name through its path key, and refuse keys that leave the tree", () => {
    for (const name of ["src/a.ts", "caf\xe9.txt", "dir/with space/ü.md"])
      expect(pathOfKey(pathKeyOf(name))).toBe(name);
    expect(pathKeyOf("a/b")).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const bad of ["../etc/passwd", "/etc/passwd", "a//b", "a/./b"])
      expect(() => pathOfKey(Buffer.from(bad, "latin1").toString("base64url"))).toThrow(/does not name a file/);
  });

  it("pick the Monaco language from the file name", () => {
    expect(languageOf("src/calendar.js")).toBe("javascript");
    expect(languageOf("src/app.tsx")).toBe("typescript");
    expect(languageOf("README.md")).toBe("markdown");
    expect(languageOf("deploy/Dockerfile")).toBe("dockerfile");
    expect(languageOf("scripts/run.sh")).toBe("shell");
    expect(languageOf("main.rs")).toBe("rust");
    expect(languageOf("LICENSE")).toBe("plaintext");
    expect(languageOf(".env")).toBe("plaintext");
  });
});
