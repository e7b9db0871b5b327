import { describe, expect, it } from "vitest";
import { git, utf8, write } from "../../../test/support/file-trees";
import { tempDir } from "../../../test/support/temp";
import { compileRule, isIgnored, matchRules, parseIgnoreFile } from "./gitignore";
import { walkTree } from "./tree-walker";

function ignored(patterns: string, rel: string, isDir = false): boolean {
  return isIgnored([parseIgnoreFile(patterns, "")], rel, isDir);
}

describe("gitignore patterns", () => {
  it.each([
    ["*.log", "debug.log", false, true],
    ["*.log", "deep/in/tree/debug.log", false, true],
    ["*.log", "debug.log.txt", false, false],
    ["/build", "build", true, true],
    ["/build", "sub/build", true, false],
    ["build/", "sub/build", true, true],
    ["build/", "sub/build", false, false],
    ["doc/frotz/", "doc/frotz", true, true],
    ["doc/frotz/", "a/doc/frotz", true, false],
    ["**/foo", "foo", false, true],
    ["**/foo", "x/y/foo", false, true],
    ["a/**/b", "a/b", false, true],
    ["a/**/b", "a/x/y/b", false, true],
    ["a/**/b", "ax/b", false, false],
    ["abc/**", "abc/x/y", false, true],
    ["abc/**", "abc", true, false],
    ["[abc].txt", "b.txt", false, true],
    ["[!abc].txt", "b.txt", false, false],
    ["[!abc].txt", "d.txt", false, true],
    ["[a-c]x", "bx", false, true],
    ["?.md", "a.md", false, true],
    ["?.md", "ab.md", false, false],
    ["\\#hash", "#hash", false, true],
    ["\\!bang", "!bang", false, true],
    ["trailing   ", "trailing", false, true],
    ["space\\ ", "space ", false, true],
    ["*", "any/thing", false, true],
  ])("%j on %j (dir %s) → %s", (patterns, rel, isDir, expected) => {
    expect(ignored(patterns, rel, isDir)).toBe(expected);
  });

  it("skips comments and blank lines, honours CRLF files, and the last matching rule wins", () => {
    const file = parseIgnoreFile("# comment\r\n\r\n*.log\r\n!keep.log\r\n", "");
    expect(file.rules).toHaveLength(2);
    expect(matchRules(file.rules, "a.log", false)).toBe(true);
    expect(matchRules(file.rules, "keep.log", false)).toBe(false);
    expect(matchRules(file.rules, "a.txt", false)).toBeUndefined();
  });

  it("matches names with newlines and non-UTF-8 bytes", () => {
    expect(ignored("*.tmp", "odd\nname.tmp")).toBe(true);
    expect(ignored("caf*", "caf\xe9")).toBe(true);
    expect(compileRule("*.tmp")?.regex.test("x\n.tmp")).toBe(true);
  });
});

describe("the walker against git itself", () => {
  it("includes exactly the files `git ls-files --others --exclude-standard` lists", () => {
    const root = tempDir("gitignore");
    git(root, ["init", "-q"]);
    write(root, ".gitignore", "*.log\nbuild/\n/only-root.txt\ndocs/**/draft.md\n!important.log\n");
    write(root, "debug.log", "x");
    write(root, "important.log", "x");
    write(root, "build/out.js", "x");
    write(root, "build/keep.txt", "x");
    write(root, "only-root.txt", "x");
    write(root, "sub/only-root.txt", "x");
    write(root, "docs/a/b/draft.md", "x");
    write(root, "docs/readme.md", "x");
    write(root, "pkg/.gitignore", "!*.log\n*.txt\n");
    write(root, "pkg/trace.log", "x");
    write(root, "pkg/notes.txt", "x");
    write(root, "pkg/deeper/.gitignore", "!notes.txt\n");
    write(root, "pkg/deeper/notes.txt", "x");
    write(root, "pkg/deeper/other.txt", "x");
    write(root, utf8("name with spaces.c"), "x");
    write(root, "src/main.c", "x");
    write(root, ".git/info/exclude", "*.secret-local\n");
    write(root, "x.secret-local", "x");

    const fromGit = git(root, ["ls-files", "--others", "--exclude-standard", "-z"]).split("\0").filter(Boolean).sort();
    return walkTree({ root }).then((walk) => {
      expect(walk.entries.map((entry) => entry.path)).toEqual(fromGit);
      expect(fromGit).toContain("pkg/trace.log");
      expect(fromGit).toContain("pkg/deeper/notes.txt");
      expect(fromGit).not.toContain("build/keep.txt");
      expect(walk.ignoredCount).toBeGreaterThan(0);
    });
  });
});
