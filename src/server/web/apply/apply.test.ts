import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listTree, p, read, symlink, utf8, write } from "../../../../test/support/file-trees";
import { migratedDb, tempDir } from "../../../../test/support/temp";
import type { Db } from "../../core/db/client";
import { createProjectQueries } from "../projects/projects.queries";
import { createProjectService, type ProjectService } from "../projects/project-service";
import { createSnapshotQueries } from "../snapshots/snapshots.queries";
import { createSnapshotService, type SnapshotService } from "../snapshots/snapshot-service";
import { createWorkspaceService, type WorkspaceService } from "../workspaces/workspace-service";
import type { AppServices } from "../wiring/app-services";
import { appRouter } from "../trpc/app-router";
import { createCallerFactory } from "../trpc/init";
import { nodeApplyFs, type ApplyFs } from "./apply-commit";
import type { ApplyPlan } from "./apply-plan";
import { preflightPlan } from "./apply-preflight";
import { createApplyService, type ApplyService } from "./apply-service";
import { createApplyQueries } from "./apply.queries";

const NON_UTF8 = "r\xe9sum\xe9.txt";
const NEWLINE = "line\nbreak.txt";
const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

let db: Db;
let dataDir: string;
let projects: ProjectService;
let snapshots: SnapshotService;
let workspaces: WorkspaceService;

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
});
afterAll(() => db.$disconnect());

function applyService(fsOverride?: ApplyFs): ApplyService {
  return createApplyService({
    dataDir,
    projects: createProjectQueries(db),
    records: createApplyQueries(db),
    ...(fsOverride ? { fs: fsOverride } : {}),
  });
}

/** A project with a snapshot and a workspace of it; `edit` then plays the agent in the workspace. */
async function scenario(populate: (root: string) => void, edit: (ws: string) => void) {
  const root = tempDir("apply-project");
  populate(root);
  const project = await projects.add({ hostPath: root });
  const snapshot = await snapshots.create({ projectId: project.id });
  const workspace = await workspaces.create({ snapshotId: snapshot.id });
  edit(workspace.path);
  return { root, project, snapshot, workspace };
}

function baseline(root: string): void {
  write(root, "src/app.ts", "export const answer = 41;\n");
  write(root, "src/util.ts", "export {};\n");
  write(root, "old/a.txt", "a\n");
  write(root, "old/b.txt", "b\n");
  write(root, "run.sh", "#!/bin/sh\necho run\n");
  write(root, "private.txt", "mine\n", 0o600);
  write(root, ".env", "SECRET=keep-me");
}

/** The agent's work: every kind of change, with awkward names. */
function agentEdits(ws: string): void {
  fs.writeFileSync(path.join(ws, "src/app.ts"), "export const answer = 42;\n");
  fs.rmSync(path.join(ws, "old"), { recursive: true });
  fs.chmodSync(path.join(ws, "run.sh"), 0o755);
  fs.writeFileSync(path.join(ws, "private.txt"), "mine, edited\n");
  write(ws, utf8("new dir/with spaces.txt"), "spaces\n");
  write(ws, NEWLINE, "newline in the name\n");
  write(ws, NON_UTF8, "latin1 name\n");
  write(ws, "empty.txt", "");
  write(ws, "assets/logo.bin", Buffer.from([0, 1, 2, 0, 255]));
  write(ws, "bin/tool", "#!/bin/sh\n", 0o755);
  symlink(ws, "src-link", "src");
}

const noSecretsOrGit = (rel: string) => rel === ".env" || rel === ".git";

describe("applying a workspace", () => {
  it("applies every kind of change, and the project then matches the workspace", async () => {
    const { root, project, workspace } = await scenario(baseline, agentEdits);
    const apply = applyService();
    const preview = await apply.preview({ workspaceId: workspace.id });
    expect(preview.conflicts).toEqual([]);
    // byte order, as git sorts: "run.sh" < "r\xe9sumé.txt" and "src-link" < "src/app.ts"
    expect(preview.steps.map((step) => `${step.action} ${step.path}`)).toEqual([
      "create assets/logo.bin",
      "create bin/tool",
      "create empty.txt",
      `create ${NEWLINE}`,
      "create new dir/with spaces.txt",
      "delete old/a.txt",
      "delete old/b.txt",
      "modify private.txt",
      "modify run.sh",
      "create r\\xe9sum\\xe9.txt",
      "create src-link",
      "modify src/app.ts",
    ]);
    const latin1Step = preview.steps.find((step) => step.pathBytes);
    expect(Buffer.from(latin1Step?.pathBytes ?? "", "base64").toString("latin1")).toBe(NON_UTF8);

    const result = await apply.run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" });
    expect(result).toMatchObject({
      outcome: "applied",
      appliedBy: "tester",
      conflicts: [],
      error: null,
      planHash: preview.planHash,
    });
    const skip = (rel: string) => noSecretsOrGit(rel) || rel === "private.txt";
    expect(listTree(root, { skip })).toEqual(listTree(workspace.path, { skip }));
    expect(fs.existsSync(path.join(root, "old"))).toBe(false); // emptied by the deletions, removed like git does
    expect(read(root, ".env").toString()).toBe("SECRET=keep-me"); // never part of the plan
    expect(read(root, "private.txt").toString()).toBe("mine, edited\n");
    expect(fs.statSync(path.join(root, "private.txt")).mode & 0o777).toBe(0o600); // the user's permissions stay
    expect(fs.statSync(path.join(root, "run.sh")).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(root).filter((name) => name.startsWith(".invariant-apply-"))).toEqual([]);

    const [record] = await apply.history({ projectId: project.id });
    expect(record).toMatchObject({
      outcome: "applied",
      appliedBy: "tester",
      workspaceId: workspace.id,
      projectId: project.id,
    });
    expect(record?.files).toEqual(
      expect.arrayContaining([
        { path: "src/app.ts", action: "modify" },
        { path: "old/a.txt", action: "delete" },
      ]),
    );
    // applying again: the project moved on, so every step now conflicts and nothing is written
    const before = listTree(root);
    const again = await apply.run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" });
    expect(again.outcome).toBe("refused");
    expect(listTree(root)).toEqual(before);
  });

  it("refuses files changed in the project since the snapshot, listing them, and writes nothing", async () => {
    const { root, workspace } = await scenario(baseline, agentEdits);
    fs.writeFileSync(path.join(root, "src/app.ts"), "export const answer = 40; // user edit\n");
    write(root, "empty.txt", "the user made this one\n");
    fs.rmSync(path.join(root, "old/a.txt"));
    fs.chmodSync(path.join(root, "src/util.ts"), 0o755); // not in the plan: no conflict
    const before = listTree(root);
    const apply = applyService();
    const preview = await apply.preview({ workspaceId: workspace.id });
    expect(preview.conflicts.map((conflict) => [conflict.path, conflict.reason])).toEqual([
      ["empty.txt", "exists"],
      ["old/a.txt", "missing"],
      ["src/app.ts", "changed"],
    ]);
    const result = await apply.run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" });
    expect(result.outcome).toBe("refused");
    expect(result.conflicts).toHaveLength(3);
    expect(result.conflicts[2]?.message).toBe("src/app.ts was changed in the project since the snapshot.");
    expect(listTree(root)).toEqual(before);
  });

  it("refuses a symlink swapped in for a file after the snapshot, and never writes through it", async () => {
    const outside = tempDir("apply-outside");
    write(outside, "target.ts", "outside\n");
    const { root, workspace } = await scenario(baseline, (ws) =>
      fs.writeFileSync(path.join(ws, "src/app.ts"), "export const answer = 42;\n"),
    );
    fs.rmSync(path.join(root, "src/app.ts"));
    symlink(root, "src/app.ts", path.join(outside, "target.ts"));
    const before = listTree(root);
    const result = await applyService().run({
      workspaceId: workspace.id,
      planHash: (await applyService().preview({ workspaceId: workspace.id })).planHash,
      appliedBy: "tester",
    });
    expect(result).toMatchObject({ outcome: "refused", conflicts: [{ path: "src/app.ts", reason: "type-changed" }] });
    expect(listTree(root)).toEqual(before);
    expect(read(outside, "target.ts").toString()).toBe("outside\n");
  });

  it("refuses a parent directory swapped for a symlink after the snapshot", async () => {
    const outside = tempDir("apply-outside");
    write(outside, "app.ts", "export const answer = 41;\n");
    write(outside, "util.ts", "export {};\n");
    const { root, workspace } = await scenario(baseline, (ws) =>
      fs.writeFileSync(path.join(ws, "src/app.ts"), "export const answer = 42;\n"),
    );
    fs.rmSync(path.join(root, "src"), { recursive: true });
    symlink(root, "src", outside);
    const outsideBefore = listTree(outside);
    const preview = await applyService().preview({ workspaceId: workspace.id });
    expect(preview.conflicts).toMatchObject([{ path: "src/app.ts", reason: "symlink-in-path" }]);
    expect(
      (await applyService().run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" }))
        .outcome,
    ).toBe("refused");
    expect(listTree(outside)).toEqual(outsideBefore);
  });

  it("keeps a link to /etc as a link and refuses to write below it", async () => {
    const { root, snapshot, workspace } = await scenario(
      (r) => {
        baseline(r);
        symlink(r, "etc-link", "/etc");
      },
      (ws) => {
        fs.rmSync(path.join(ws, "etc-link"));
        write(ws, "etc-link/invariant-evil.conf", "pwned\n");
      },
    );
    expect(snapshot.fileCount).toBe(7); // the link, not /etc's files
    const before = listTree(root);
    const preview = await applyService().preview({ workspaceId: workspace.id });
    expect(preview.conflicts).toMatchObject([{ path: "etc-link/invariant-evil.conf", reason: "symlink-in-path" }]);
    expect(
      (await applyService().run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" }))
        .outcome,
    ).toBe("refused");
    expect(fs.existsSync("/etc/invariant-evil.conf")).toBe(false);
    expect(listTree(root)).toEqual(before);
  });

  it("refuses new symlinks that point outside the project", async () => {
    const { workspace } = await scenario(baseline, (ws) => {
      symlink(ws, "escape", "../../../../etc/shadow");
      symlink(ws, "absolute", "/etc");
      symlink(ws, "inside", "src/../run.sh");
    });
    const preview = await applyService().preview({ workspaceId: workspace.id });
    expect(preview.conflicts.map((conflict) => [conflict.path, conflict.reason])).toEqual([
      ["absolute", "symlink-escapes"],
      ["escape", "symlink-escapes"],
    ]);
  });

  it("refuses `..`, absolute, empty and always-excluded paths in a plan", async () => {
    const root = tempDir("apply-hostile");
    write(root, "ok.txt", "ok\n");
    const file = { type: "file" as const, mode: "100644" as const, size: 3, sha256: sha("x\n") };
    const plan: ApplyPlan = {
      projectId: "p",
      snapshotId: "s",
      workspaceId: "w",
      hash: "h",
      steps: [
        "../outside.txt",
        "a/../../x",
        "/etc/passwd",
        "a//b",
        "ok/./x",
        "",
        ".git/hooks/pre-commit",
        ".env",
        "nested/.ssh/authorized_keys",
      ].map((rel) => ({ action: "create" as const, path: rel, before: null, after: file })),
    };
    const conflicts = await preflightPlan({ projectRoot: root, plan });
    expect(conflicts.map((conflict) => conflict.reason)).toEqual([
      "unsafe-path",
      "unsafe-path",
      "unsafe-path",
      "unsafe-path",
      "unsafe-path",
      "unsafe-path",
      "excluded-path",
      "excluded-path",
      "excluded-path",
    ]);
    expect(conflicts[0]?.message).toBe(
      '../outside.txt: the path has a ".." segment; it could point outside the project.',
    );
  });

  it("refuses a plan other than the one previewed", async () => {
    const { root, workspace } = await scenario(baseline, agentEdits);
    const apply = applyService();
    const preview = await apply.preview({ workspaceId: workspace.id });
    write(workspace.path, "late.txt", "written after the review\n");
    const before = listTree(root);
    const result = await apply.run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" });
    expect(result).toMatchObject({ outcome: "refused", conflicts: [{ reason: "plan-changed" }] });
    expect(listTree(root)).toEqual(before);
  });
});

describe("a failure midway through an apply", () => {
  /** ApplyFs that throws on its n-th call (and only then). */
  function failingAt(n: number, counter = { calls: 0 }): ApplyFs {
    const wrap =
      <A extends unknown[]>(name: string, call: (...args: A) => Promise<void>) =>
      async (...args: A) => {
        counter.calls++;
        if (counter.calls === n) throw new Error(`injected failure in ${name} (call ${n})`);
        await call(...args);
      };
    return {
      mkdir: wrap("mkdir", nodeApplyFs.mkdir),
      rmdir: wrap("rmdir", nodeApplyFs.rmdir),
      rename: wrap("rename", nodeApplyFs.rename),
      link: wrap("link", nodeApplyFs.link),
      unlink: wrap("unlink", nodeApplyFs.unlink),
      symlink: wrap("symlink", nodeApplyFs.symlink),
    };
  }

  it("at any step leaves the project exactly as it was", async () => {
    const { root, project, workspace } = await scenario(baseline, agentEdits);
    const preview = await applyService().preview({ workspaceId: workspace.id });
    const before = listTree(root);
    const inodes = fs.statSync(path.join(root, "src/app.ts")).ino;
    let failures = 0;
    for (let n = 1; n < 200; n++) {
      const result = await applyService(failingAt(n)).run({
        workspaceId: workspace.id,
        planHash: preview.planHash,
        appliedBy: "tester",
      });
      if (result.outcome === "applied") break;
      failures++;
      expect(result).toMatchObject({
        outcome: "rolled-back",
        error: expect.stringContaining(`injected failure`) as unknown,
      });
      expect(listTree(root), `after a failure at call ${n}`).toEqual(before);
    }
    expect(failures).toBeGreaterThan(20); // every rename, mkdir, link, unlink and symlink of this plan was a failure point
    expect(fs.statSync(path.join(root, "src/app.ts")).ino).not.toBe(inodes); // and in the end it applied
    const history = await applyService().history({ projectId: project.id });
    expect(history.filter((record) => record.outcome === "rolled-back")).toHaveLength(failures);
  });

  it("undoing at any step either restores the project completely or leaves it as the apply left it", async () => {
    const { root, project, workspace } = await scenario(baseline, agentEdits);
    const original = listTree(root);
    const preview = await applyService().preview({ workspaceId: workspace.id });
    const applied = await applyService().run({
      workspaceId: workspace.id,
      planHash: preview.planHash,
      appliedBy: "tester",
    });
    const afterApply = listTree(root);
    let failures = 0;
    for (let n = 1; n < 200; n++) {
      const result = await applyService(failingAt(n)).undo({ recordId: applied.id, undoneBy: "tester" });
      if (result.outcome === "undone") break;
      failures++;
      expect(result).toMatchObject({ outcome: "rolled-back", undoOf: applied.id });
      expect(listTree(root), `after a failure at call ${n}`).toEqual(afterApply);
    }
    expect(failures).toBeGreaterThan(20);
    // the run that went through had its failure in the clean-up after the commit: removing a directory
    // the apply created (as after an apply, an empty directory may be left; nothing else differs)
    const after = listTree(root);
    expect(original.filter((line) => !after.includes(line))).toEqual([]);
    expect(after.filter((line) => !original.includes(line))).toEqual(['dir 755 "new dir"']);
    const history = await applyService().history({ projectId: project.id });
    expect(history.filter((record) => record.undoOf === applied.id).map((record) => record.outcome)).toEqual([
      "undone",
      ...Array<string>(failures).fill("rolled-back"),
    ]);
  });

  it("says where the backups are if the rollback itself fails", async () => {
    const { root, workspace } = await scenario(baseline, (ws) =>
      fs.writeFileSync(path.join(ws, "src/app.ts"), "export const answer = 42;\n"),
    );
    const preview = await applyService().preview({ workspaceId: workspace.id });
    // call 1: move src/app.ts to the backup; call 2: link the new file fails; call 3: restoring the backup fails too
    const counter = { calls: 0 };
    const ops = failingAt(2, counter);
    const brokenRestore: ApplyFs = {
      ...ops,
      rename: async (from, to) => (counter.calls >= 2 ? Promise.reject(new Error("disk gone")) : ops.rename(from, to)),
    };
    await expect(
      applyService(brokenRestore).run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" }),
    ).rejects.toMatchObject({
      code: "INTERNAL_SERVER_ERROR",
      message: expect.stringMatching(
        /could not be undone.*\.invariant-apply-[0-9a-f]+\/backup \(see journal\.json there\)/s,
      ) as unknown,
    });
    const staging = fs.readdirSync(root).find((name) => name.startsWith(".invariant-apply-")) ?? "";
    expect(read(root, `${staging}/backup/0`).toString()).toBe("export const answer = 41;\n");
    expect(JSON.parse(read(root, `${staging}/journal.json`).toString())).toMatchObject({
      planHash: preview.planHash,
      steps: [{ path: "src/app.ts", action: "modify" }],
    });
    expect(fs.existsSync(p(root, "src/app.ts"))).toBe(false);
  });
});

describe("the apply router", () => {
  it("records the caller as who applied", async () => {
    const { workspace } = await scenario(baseline, (ws) => write(ws, "added.txt", "x\n"));
    const services = { apply: applyService() } as unknown as AppServices;
    const caller = createCallerFactory(appRouter)({ identity: { role: "admin", subject: "admin" }, services });
    const preview = await caller.applies.preview({ workspaceId: workspace.id });
    await expect(caller.applies.run({ workspaceId: workspace.id, planHash: preview.planHash })).resolves.toMatchObject({
      outcome: "applied",
      appliedBy: "admin",
    });
    const viewer = createCallerFactory(appRouter)({ identity: { role: "viewer", subject: "link" }, services });
    await expect(viewer.applies.run({ workspaceId: workspace.id, planHash: preview.planHash })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});
