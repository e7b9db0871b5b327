import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedDb, tempDir } from "../../../../test/support/temp";
import type { Db } from "../../core/db/client";
import { createProjectQueries } from "../projects/projects.queries";
import { createProjectService, type ProjectService } from "../projects/project-service";
import { listProjectFiles } from "./study-defaults";

/** The study form's test-file search: a folder or glob lists what the study would capture for it. */
let db: Db;
let projects: ProjectService;
beforeAll(async () => {
  let dataDir: string;
  ({ db, dataDir } = await migratedDb());
  projects = createProjectService({
    projects: createProjectQueries(db),
    dataDir,
    host: { cpus: 2, memoryBytes: 8 * 1024 ** 3 },
  });
});
afterAll(() => db.$disconnect());

function write(root: string, rel: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), `# ${rel}\n`);
}

describe("searching the project for test files", () => {
  it("lists a glob's matches (links included, always-excluded paths not), and a plain filter as before", async () => {
    const root = tempDir("search-project");
    for (const rel of ["tests/test_a.py", "tests/unit/test_b.py", "tests/unit/notes.md", "src/app.py"])
      write(root, rel);
    write(root, "tests/.venv/lib/site.py");
    fs.symlinkSync("test_a.py", path.join(root, "tests/test_alias.py"));
    const project = await projects.add({ hostPath: root });
    const search = (query: string) =>
      listProjectFiles({ projectId: project.id, query, projects: createProjectQueries(db) });

    const glob = await search("tests/**/*.py");
    expect(glob.total).toBe(3);
    expect(glob.files.map((file) => file.path)).toEqual([
      "tests/test_a.py",
      "tests/test_alias.py",
      "tests/unit/test_b.py",
    ]);
    expect((await search("tests/")).total).toBe(4);
    expect((await search("../")).files.map((file) => file.path)).toEqual([]);
    expect((await search("notes")).files.map((file) => file.path)).toEqual(["tests/unit/notes.md"]);
  });
});
