import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listTree, read, write } from "../../test/support/file-trees";
import { migratedDb, MIGRATIONS_DIR, tempDir } from "../../test/support/temp";
import { createApplyQueries } from "../server/web/apply/apply.queries";
import { createApplyService } from "../server/web/apply/apply-service";
import { openDb, type Db } from "../server/core/db/client";
import { createProjectQueries } from "../server/web/projects/projects.queries";
import { createProjectService } from "../server/web/projects/project-service";
import { createSnapshotQueries } from "../server/web/snapshots/snapshots.queries";
import { createSnapshotService } from "../server/web/snapshots/snapshot-service";
import { createWorkspaceService } from "../server/web/workspaces/workspace-service";
import { parseCli } from "./config";
import { runApplyCommand, type ApplyApi } from "./apply-command";
import { cliResultSchema } from "./cli-schemas";

let dataDir: string;
let databaseFile: string;
const root = path.resolve(MIGRATIONS_DIR, "..", "..");

beforeAll(async () => {
  const created = await migratedDb();
  await created.db.$disconnect();
  ({ dataDir, file: databaseFile } = created);
});

/** The database for the test's own setup and checks, closed again before the CLI opens it (as a separate process would). */
async function withDb<T>(task: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ file: databaseFile });
  try {
    return await task(db);
  } finally {
    await db.$disconnect();
  }
}

async function scenario() {
  const project = tempDir("cli-project");
  write(project, "src/app.ts", "old\n");
  return withDb(async (db) => {
    const added = await createProjectService({
      projects: createProjectQueries(db),
      dataDir,
      host: { cpus: 2, memoryBytes: 8 * 1024 ** 3 },
    }).add({ hostPath: project });
    const snapshot = await createSnapshotService({
      dataDir,
      projects: createProjectQueries(db),
      snapshots: createSnapshotQueries(db),
    }).create({ projectId: added.id });
    const workspace = await createWorkspaceService({ dataDir, snapshots: createSnapshotQueries(db) }).create({
      snapshotId: snapshot.id,
    });
    fs.writeFileSync(path.join(workspace.path, "src/app.ts"), "new\n");
    write(workspace.path, "src/added.ts", "added\n");
    return { project, projectId: added.id, workspace };
  });
}

async function run(args: string[], connect?: (dataDir: string) => Promise<ApplyApi>) {
  let stdout = "";
  let stderr = "";
  const config = parseCli(["apply", ...args, "--data-dir", dataDir], {});
  const code = await runApplyCommand({
    config,
    root,
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    ...(connect ? { connect } : {}),
  });
  return { code, stdout, stderr };
}

describe("invariant-web apply", () => {
  it("shows the plan and writes nothing without --yes", async () => {
    const { project, workspace } = await scenario();
    const before = listTree(project);
    const { code, stdout } = await run([workspace.id]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Plan [0-9a-f]{64} for workspace ws-/);
    expect(stdout).toContain(
      "  create src/added.ts\n  modify src/app.ts\n2 change(s): 1 added, 1 modified, 0 deleted.\nRun again with --yes to apply it.\n",
    );
    expect(listTree(project)).toEqual(before);
  });

  it("applies with --yes when no launcher runs, recording the CLI user, and releases the data-dir lock", async () => {
    const { project, projectId, workspace } = await scenario();
    const { code, stdout } = await run([workspace.id, "--yes"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Applied 2 change\(s\) to the project \(record \w+\)\.\n$/);
    expect(read(project, "src/app.ts").toString()).toBe("new\n");
    const [record] = await withDb((db) => createApplyQueries(db).listForProject(projectId));
    expect(record).toMatchObject({ outcome: "applied", appliedBy: `cli:${os.userInfo().username}` });
    expect(fs.existsSync(path.join(dataDir, "launcher.json"))).toBe(false);
  });

  it("refuses with the conflicts and exit code 3 (refused), in the documented JSON envelope", async () => {
    const { project, workspace } = await scenario();
    fs.writeFileSync(path.join(project, "src/app.ts"), "edited by the user\n");
    const before = listTree(project);
    const { code, stdout } = await run([workspace.id, "--yes", "--json"]);
    expect(code).toBe(3);
    const envelope = cliResultSchema("apply").parse(JSON.parse(stdout));
    expect(envelope).toMatchObject({ ok: false, exitCode: 3 });
    expect(envelope.data.result).toMatchObject({
      outcome: "refused",
      conflicts: [{ path: "src/app.ts", reason: "changed" }],
    });
    expect(listTree(project)).toEqual(before);
  });

  it("goes through the running dashboard when a launcher holds the data dir", async () => {
    const { project, workspace } = await scenario();
    fs.writeFileSync(
      path.join(dataDir, "launcher.json"),
      JSON.stringify({ pid: process.ppid, url: "http://127.0.0.1:9" }),
    );
    const calls: string[] = [];
    const db = await openDb({ file: databaseFile });
    const service = createApplyService({
      dataDir,
      projects: createProjectQueries(db),
      records: createApplyQueries(db),
    });
    const connect = (dir: string): Promise<ApplyApi> => {
      calls.push(dir);
      return Promise.resolve({
        preview: (workspaceId) => service.preview({ workspaceId }),
        run: (workspaceId, planHash) => service.run({ workspaceId, planHash, appliedBy: "admin" }),
        previewTrial: (trialId) => service.previewTrial({ trialId }),
        runTrial: (trialId, planHash) => service.runTrial({ trialId, planHash, appliedBy: "admin" }),
        close: () => Promise.resolve(),
      });
    };
    try {
      const { code } = await run([workspace.id, "--yes"], connect);
      expect(code).toBe(0);
      expect(calls).toEqual([dataDir]);
      expect(read(project, "src/added.ts").toString()).toBe("added\n");
    } finally {
      fs.rmSync(path.join(dataDir, "launcher.json"));
      await db.$disconnect();
    }
  });

  it("needs exactly one workspace, and a data dir that has data", async () => {
    expect(await run([])).toMatchObject({ code: 2, stderr: expect.stringContaining("name one workspace") as unknown });
    const empty = tempDir("cli-empty");
    const config = parseCli(["apply", "ws-0123456789abcdef01234567", "--data-dir", empty], {});
    let stderr = "";
    const code = await runApplyCommand({ config, root, out: () => undefined, err: (text) => (stderr += text) });
    expect(code).toBe(1);
    expect(stderr).toMatch(/no invariant-web data in/);
    expect(fs.readdirSync(empty)).toEqual([]);
  });
});
