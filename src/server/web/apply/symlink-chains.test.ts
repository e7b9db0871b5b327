import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listTree, symlink, write } from "../../../../test/support/file-trees";
import { migratedDb, tempDir } from "../../../../test/support/temp";
import type { Db } from "../../core/db/client";
import { createProjectQueries } from "../projects/projects.queries";
import { createProjectService, type ProjectService } from "../projects/project-service";
import { createSnapshotQueries } from "../snapshots/snapshots.queries";
import { createSnapshotService, type SnapshotService } from "../snapshots/snapshot-service";
import { createWorkspaceService, type WorkspaceService } from "../workspaces/workspace-service";
import { createApplyService, type ApplyService } from "./apply-service";
import { createApplyQueries } from "./apply.queries";

/**
 * Apply follows symlinks the way the kernel will once the plan is in place: each link's target is
 * resolved through every link on its way (new ones, changed ones and the project's own), so a chain
 * of links that are each harmless on their own cannot climb out of the project.
 */
let db: Db;
let dataDir: string;
let projects: ProjectService;
let snapshots: SnapshotService;
let workspaces: WorkspaceService;
let apply: ApplyService;

beforeAll(async () => {
  ({ db, dataDir } = await migratedDb());
  projects = createProjectService({
    projects: createProjectQueries(db),
    dataDir,
    host: { cpus: 2, memoryBytes: 8 * 1024 ** 3 },
  });
  snapshots = createSnapshotService({
    dataDir,
    projects: createProjectQueries(db),
    snapshots: createSnapshotQueries(db),
  });
  workspaces = createWorkspaceService({ dataDir, snapshots: createSnapshotQueries(db) });
  apply = createApplyService({ dataDir, projects: createProjectQueries(db), records: createApplyQueries(db) });
});
afterAll(() => db.$disconnect());

/** A project inside a parent directory that holds a "loot" file: what an escaping link would reach. */
async function scenario(populate: (root: string) => void, edit: (ws: string) => void) {
  const parent = tempDir("apply-chain");
  write(parent, "loot.txt", "outside the project\n");
  const root = path.join(parent, "project");
  write(root, "src/app.ts", "export {};\n");
  populate(root);
  const project = await projects.add({ hostPath: root });
  const snapshot = await snapshots.create({ projectId: project.id });
  const workspace = await workspaces.create({ snapshotId: snapshot.id });
  edit(workspace.path);
  return { root, workspace };
}

/** `a1/up -> ..`, `a2/up -> ../a1/up`, …: each lexically inside, each resolving to the project root. */
function chain(root: string, depth: number): void {
  for (let level = 1; level <= depth; level++) {
    write(root, `a${level}/keep.txt`, `${level}\n`);
    symlink(root, `a${level}/up`, level === 1 ? ".." : `../a${level - 1}/up`);
  }
}

async function previewAndRun(workspaceId: string, root: string) {
  const before = listTree(root);
  const preview = await apply.preview({ workspaceId });
  const record = await apply.run({ workspaceId, planHash: preview.planHash, appliedBy: "tester" });
  return { preview, record, before };
}

const NOT_GIT = (rel: string) => rel === ".git";

describe("symlink chains in an apply plan", () => {
  for (const depth of [1, 2, 3, 4, 5]) {
    it(`refuses a new link that climbs out through a chain of ${depth} new link(s), writing nothing`, async () => {
      const { root, workspace } = await scenario(
        () => undefined,
        (ws) => {
          chain(ws, depth);
          symlink(ws, "esc", `a${depth}/up/..`);
        },
      );
      const { preview, record, before } = await previewAndRun(workspace.id, root);
      const escapes = preview.conflicts.filter((conflict) => conflict.reason === "symlink-escapes");
      expect(escapes.map((conflict) => conflict.path)).toEqual(["esc"]);
      expect(escapes[0]?.message).toMatch(/outside the project/);
      expect(record.outcome).toBe("refused");
      expect(listTree(root)).toEqual(before);
      expect(fs.existsSync(path.join(root, "esc"))).toBe(false);
    });

    it(`refuses a new link that climbs out through a chain of ${depth} link(s) already in the project`, async () => {
      const { root, workspace } = await scenario(
        (project) => chain(project, depth),
        (ws) => symlink(ws, "deeper/esc", `../a${depth}/up/../loot.txt`),
      );
      const { preview, record, before } = await previewAndRun(workspace.id, root);
      expect(preview.conflicts.map((conflict) => [conflict.path, conflict.reason])).toEqual([
        ["deeper/esc", "symlink-escapes"],
      ]);
      expect(record.outcome).toBe("refused");
      expect(listTree(root)).toEqual(before);
    });
  }

  it("applies a chain of five links that stays inside the project", async () => {
    const { root, workspace } = await scenario(
      () => undefined,
      (ws) => {
        chain(ws, 5);
        symlink(ws, "ok", "a5/up/src/app.ts");
      },
    );
    const { preview, record } = await previewAndRun(workspace.id, root);
    expect(preview.conflicts).toEqual([]);
    expect(record.outcome).toBe("applied");
    expect(fs.readFileSync(path.join(root, "ok"), "utf8")).toBe("export {};\n");
    expect(listTree(root, { skip: NOT_GIT })).toEqual(listTree(workspace.path, { skip: NOT_GIT }));
  });

  it("refuses a new link that reaches an absolute link of the project through a chain", async () => {
    const { root, workspace } = await scenario(
      (project) => symlink(project, "etc-link", "/etc"),
      (ws) => {
        chain(ws, 3);
        symlink(ws, "shadow", "a3/up/etc-link/shadow");
      },
    );
    const { preview } = await previewAndRun(workspace.id, root);
    expect(preview.conflicts.map((conflict) => [conflict.path, conflict.reason])).toEqual([
      ["shadow", "symlink-escapes"],
    ]);
    expect(preview.conflicts[0]?.message).toMatch(/absolute/);
  });

  it("refuses a plan that makes an existing link of the project lead outside it", async () => {
    // x -> q/d/../.. is the project root while q/d -> sub (q/sub); the plan points q/d at .. (the root)
    const { root, workspace } = await scenario(
      (project) => {
        write(project, "q/sub/file.txt", "d\n");
        symlink(project, "q/d", "sub");
        symlink(project, "x", "q/d/../..");
      },
      (ws) => {
        fs.unlinkSync(path.join(ws, "q/d"));
        symlink(ws, "q/d", "..");
      },
    );
    const { preview, record } = await previewAndRun(workspace.id, root);
    expect(preview.conflicts.map((conflict) => [conflict.path, conflict.reason])).toEqual([["x", "symlink-escapes"]]);
    expect(record.outcome).toBe("refused");
  });

  it("refuses a loop of links (more than the kernel follows)", async () => {
    const { root, workspace } = await scenario(
      () => undefined,
      (ws) => {
        symlink(ws, "loop-a", "loop-b");
        symlink(ws, "loop-b", "loop-a");
      },
    );
    const { preview } = await previewAndRun(workspace.id, root);
    expect(preview.conflicts.map((conflict) => conflict.reason)).toEqual(["symlink-escapes", "symlink-escapes"]);
    expect(preview.conflicts[0]?.message).toMatch(/does not end/);
  });
});
