import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import type { TestFileInput } from "../../../shared/study-inputs";
import { expandTestFiles } from "./test-file-patterns";
import { readTestFiles, restoreTestFiles, storeTestFiles } from "./test-files";

/** Whole test folders and globs: expanded on the project's real tree to the files the study records. */
function write(root: string, rel: string, text = `// ${rel}\n`): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

const project = (path: string, role: "test" | "config" = "test"): TestFileInput => ({ source: "project", path, role });

describe("test folders and globs", () => {
  it("captures a whole folder (test/), skipping what snapshots always exclude, and restores every file", async () => {
    const root = tempDir("folder-project");
    for (let index = 0; index < 150; index++) write(root, `test/unit/case-${String(index).padStart(3, "0")}.test.js`);
    write(root, "test/node_modules/dep/index.js");
    write(root, "test/.env", "SECRET=1\n");
    write(root, "src/app.js");
    const expanded = await expandTestFiles({ projectRoot: root, files: [project("test/")], junitPath: null });
    expect(expanded).toHaveLength(150);
    expect(expanded[0]?.path).toBe("test/unit/case-000.test.js");
    expect(expanded.every((file) => file.source === "project" && file.path.startsWith("test/unit/"))).toBe(true);

    const dataDir = tempDir("folder-data");
    const captured = await readTestFiles({ projectRoot: root, files: expanded });
    const views = await storeTestFiles({ dataDir, studyId: "s1", files: captured });
    const tree = tempDir("folder-tree");
    await restoreTestFiles({ dataDir, studyId: "s1", tree, files: views });
    expect(fs.readdirSync(path.join(tree, "test/unit"))).toHaveLength(150);
    expect(fs.readFileSync(path.join(tree, "test/unit/case-149.test.js"), "utf8")).toBe(
      "// test/unit/case-149.test.js\n",
    );
  });

  it("takes a plain folder name as the folder, and a file named on its own keeps its role", async () => {
    const root = tempDir("plain-folder");
    write(root, "test/a.test.js");
    write(root, "test/setup.js");
    const expanded = await expandTestFiles({
      projectRoot: root,
      files: [project("test"), project("test/setup.js", "config")],
      junitPath: null,
    });
    expect(expanded.map((file) => [file.path, file.role])).toEqual([
      ["test/setup.js", "config"],
      ["test/a.test.js", "test"],
    ]);
  });

  it("takes a path that names a file as written as that file, glob characters or not", async () => {
    const root = tempDir("bracket-project");
    write(root, "app/[id]/page.test.tsx");
    write(root, "app/i/page.test.tsx");
    const expanded = await expandTestFiles({
      projectRoot: root,
      files: [project("app/[id]/page.test.tsx"), project("app/[i]/*.tsx")],
      junitPath: null,
    });
    expect(expanded.map((file) => file.path)).toEqual(["app/[id]/page.test.tsx", "app/i/page.test.tsx"]);
  });

  it("expands tests/**/*.py to the Python files at every depth below tests/ only", async () => {
    const root = tempDir("glob-project");
    for (const rel of [
      "tests/test_top.py",
      "tests/unit/test_b.py",
      "tests/unit/deep/test_c.py",
      "tests/README.md",
      "tests/__pycache__/test_b.cpython-312.py",
      "tests/.venv/lib/site.py",
      "other/test_d.py",
      "test_root.py",
    ])
      write(root, rel);
    const expanded = await expandTestFiles({ projectRoot: root, files: [project("tests/**/*.py")], junitPath: null });
    expect(expanded.map((file) => file.path)).toEqual([
      "tests/test_top.py",
      "tests/unit/deep/test_c.py",
      "tests/unit/test_b.py",
    ]);
  });

  it("leaves out matches at the JUnit path and refuses a pattern that matches nothing", async () => {
    const root = tempDir("junit-project");
    write(root, "test/a.test.js");
    write(root, "test/reports/junit.xml", "<testsuites/>\n");
    const expanded = await expandTestFiles({
      projectRoot: root,
      files: [project("test/**")],
      junitPath: "test/reports",
    });
    expect(expanded.map((file) => file.path)).toEqual(["test/a.test.js"]);
    await expect(
      expandTestFiles({ projectRoot: root, files: [project("spec/**/*.rb")], junitPath: null }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      field: "testFiles.0.path",
      message: /spec\/\*\*\/\*\.rb matches no file/,
    });
  });

  it("refuses more than 2,000 files, saying how many the pattern matched and how to narrow it", async () => {
    const root = tempDir("many-project");
    for (let index = 0; index < 2001; index++) write(root, `tests/case-${index}.py`, "");
    const refused = await expandTestFiles({ projectRoot: root, files: [project("tests/")], junitPath: null }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: "BAD_REQUEST", field: "testFiles" });
    const message = (refused as Error).message;
    expect(message).toContain("tests/ matches 2,001 files");
    expect(message).toContain("at most 2,000");
    expect(message).toContain("Narrow the pattern");
  });

  it("refuses a set over 50 MiB before reading it", async () => {
    const root = tempDir("big-project");
    fs.mkdirSync(path.join(root, "fixtures"));
    for (let index = 0; index < 11; index++)
      fs.truncateSync(createdFile(root, `fixtures/blob-${index}.bin`), 5_000_000);
    const refused = await expandTestFiles({
      projectRoot: root,
      files: [project("fixtures/*.bin")],
      junitPath: null,
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "BAD_REQUEST", field: "testFiles" });
    expect((refused as Error).message).toMatch(
      /fixtures\/\*\.bin matches 11 files\) come to 52\.5 MiB; a study captures at most 50 MiB/,
    );
  });
});

function createdFile(root: string, rel: string): string {
  const file = path.join(root, rel);
  fs.writeFileSync(file, "");
  return file;
}
