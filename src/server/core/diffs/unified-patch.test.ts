import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { diffLines, splitLines } from "./line-diff";
import { formatFilePatch, type PatchSide } from "./unified-patch";

const CAPS = { maxBytes: 1024 * 1024, maxTextBytes: 1024 * 1024 };
const file = (text: string, mode: PatchSide["mode"] = "100644"): PatchSide => ({ mode, content: Buffer.from(text) });

/** Applies `patch` with `git apply` to a directory holding `before` and returns the result. */
function gitApply(name: string, before: string | null, patch: string): string | null {
  const dir = tempDir("patch");
  if (before !== null) fs.writeFileSync(path.join(dir, name), before);
  fs.writeFileSync(path.join(dir, "change.patch"), patch);
  execFileSync("git", ["apply", "--whitespace=nowarn", "change.patch"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), "utf8") : null;
}

/** A deterministic pseudo-random text edit: lines replaced, inserted and removed. */
function mutate(lines: string[], seed: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = [...lines];
  const edits = 1 + Math.floor(next() * 8);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * (out.length + 1));
    const kind = next();
    if (kind < 0.33 && out.length > 0) out.splice(at, 1);
    else if (kind < 0.66) out.splice(at, 0, `inserted ${seed}-${i}\n`);
    else if (out.length > 0) out[Math.min(at, out.length - 1)] = `replaced ${seed}-${i}\n`;
  }
  return out;
}

describe("line diff", () => {
  it("reconstructs b from a and the edit script, for many random edits", () => {
    const base = Array.from({ length: 60 }, (_, i) => `line ${i % 7 === 0 ? "same" : i}\n`);
    for (let seed = 1; seed <= 200; seed++) {
      const b = mutate(base, seed);
      const rebuilt: string[] = [];
      for (const edit of diffLines(base, b)) {
        if (edit.op === "equal") rebuilt.push(...base.slice(edit.aStart, edit.aStart + edit.length));
        if (edit.op === "insert") rebuilt.push(...b.slice(edit.bStart, edit.bStart + edit.length));
      }
      expect(rebuilt).toEqual(b);
    }
  });

  it("falls back to one replacement past the edit budget, still correct", () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}\n`);
    const b = Array.from({ length: 50 }, (_, i) => `b${i}\n`);
    expect(diffLines(a, b, { maxEdits: 10 }).map((edit) => edit.op)).toEqual(["delete", "insert"]);
  });

  it("keeps the newline with each line", () => {
    expect(splitLines("a\nb")).toEqual(["a\n", "b"]);
    expect(splitLines("")).toEqual([]);
  });
});

describe("unified patches", () => {
  it("are accepted by git apply and give exactly the new text, for many random edits", () => {
    const base = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i % 5};\n`);
    for (let seed = 1; seed <= 25; seed++) {
      const before = base.join("");
      const after = mutate(base, seed).join("");
      const patch = formatFilePatch({ path: "file.ts", before: file(before), after: file(after), ...CAPS });
      expect(gitApply("file.ts", before, patch.text)).toBe(after);
    }
  });

  it.each([
    ["adds a newline at end of file", "a\nb", "a\nb\n"],
    ["removes the newline at end of file", "a\nb\n", "a\nb"],
    ["edits the first line", "a\nb\nc\n", "z\nb\nc\n"],
    ["empties a file", "a\nb\n", ""],
    ["fills an empty file", "", "x\ny"],
  ])("%s", (_label, before, after) => {
    const patch = formatFilePatch({ path: "f.txt", before: file(before), after: file(after), ...CAPS });
    expect(gitApply("f.txt", before, patch.text)).toBe(after);
  });

  it("create and delete files, with git's headers", () => {
    const created = formatFilePatch({ path: "new.txt", before: null, after: file("hello\n"), ...CAPS });
    expect(created.text).toBe(
      "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n",
    );
    expect(gitApply("new.txt", null, created.text)).toBe("hello\n");
    const deleted = formatFilePatch({ path: "old.txt", before: file("bye\n"), after: null, ...CAPS });
    expect(gitApply("old.txt", "bye\n", deleted.text)).toBeNull();
    expect(formatFilePatch({ path: "empty", before: null, after: file(""), ...CAPS }).text).toBe(
      "diff --git a/empty b/empty\nnew file mode 100644\n",
    );
  });

  it("show mode changes, quote odd names, and mark binary files", () => {
    expect(formatFilePatch({ path: "run.sh", before: file("x\n"), after: file("x\n", "100755"), ...CAPS }).text).toBe(
      "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
    );
    expect(formatFilePatch({ path: "a\nb", before: null, after: file("x\n"), ...CAPS }).text).toMatch(
      /^diff --git "a\/a\\nb" "b\/a\\nb"\n/,
    );
    expect(formatFilePatch({ path: "caf\xe9", before: null, after: file("x\n"), ...CAPS }).text).toMatch(
      /^diff --git "a\/caf\\351" "b\/caf\\351"\n/,
    );
    const binary = formatFilePatch({
      path: "img.bin",
      before: { mode: "100644", content: Buffer.from([0, 1]) },
      after: { mode: "100644", content: Buffer.from([0, 2, 3]) },
      ...CAPS,
    });
    expect(binary).toMatchObject({
      binary: true,
      text: "diff --git a/img.bin b/img.bin\nBinary files a/img.bin and b/img.bin differ\n",
    });
  });

  it("show a symlink as its target, and a file becoming a link as delete + add", () => {
    const link = formatFilePatch({
      path: "l",
      before: { mode: "120000", content: Buffer.from("a") },
      after: { mode: "120000", content: Buffer.from("b") },
      ...CAPS,
    });
    expect(link.text).toContain("-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n");
    const swapped = formatFilePatch({
      path: "f",
      before: file("x\n"),
      after: { mode: "120000", content: Buffer.from("/etc/passwd") },
      ...CAPS,
    });
    expect(swapped.text).toMatch(/deleted file mode 100644[\s\S]*new file mode 120000[\s\S]*\+\/etc\/passwd/);
  });

  it("are capped with a clear marker", () => {
    const before = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`);
    const after = before.map((line, i) => (i % 10 === 0 ? `changed ${line}` : line));
    const patch = formatFilePatch({
      path: "big.txt",
      before: file(before.join("")),
      after: file(after.join("")),
      maxBytes: 2000,
      maxTextBytes: 1024 * 1024,
    });
    expect(patch.truncated).toBe(true);
    expect(patch.text).toMatch(/\[diff truncated: [\d,]+ more changed line\(s\) not shown\]\n$/);
    expect(patch.text.length).toBeLessThan(2600);
    expect(patch.insertions).toBe(200);
    const huge = formatFilePatch({
      path: "huge.txt",
      before: { mode: "100644", content: null },
      after: file("x"),
      maxBytes: 2000,
      maxTextBytes: 10,
    });
    expect(huge).toMatchObject({
      truncated: true,
      text: expect.stringContaining("[diff truncated: the file is larger than 10 bytes") as unknown,
    });
  });
});
