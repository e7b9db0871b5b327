import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { listTree, read, symlink, write } from "../../../../test/support/file-trees";
import { migratedDb, redisUrlFor, tempDir } from "../../../../test/support/temp";
import { createAppServices, type AppServices } from "../wiring/app-services";
import type { Db } from "../../core/db/client";
import { connectRedis } from "../../core/redis/connection";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { dataDirPaths } from "../../core/storage/data-dir";
import { appRouter } from "../trpc/app-router";
import { createCallerFactory } from "../trpc/init";

/**
 * Keeping a result, through the tRPC router on real SQLite, Redis and files: choose a trial, apply
 * its workspace to the project, read the history, undo the apply. The study and its trials are rows
 * (no agent runs here); the trials' workspaces are real copies of a real snapshot.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 12);
const NON_UTF8 = "r\xe9sum\xe9.txt";
const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

let db: Db;
let dataDir: string;
let services: AppServices;
const createCaller = createCallerFactory(appRouter);
const admin = () => createCaller({ identity: { role: "admin", subject: "admin" }, services });
const viewer = () => createCaller({ identity: { role: "viewer", subject: "link-1" }, services });

beforeAll(async () => {
  ({ db, dataDir } = await migratedDb());
  const redis = connectRedis({ url: REDIS_URL, name: "keep-a-result-test" });
  await redis.flushdb();
  redis.disconnect();
  services = createAppServices({
    db,
    redisUrl: REDIS_URL,
    dataDir,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: createDockerRuntime(),
    sessionRuntime: (policy) => createDockerRuntime(policy),
  });
});
afterAll(async () => {
  await services.close();
  await db.$disconnect();
});

function baseline(root: string): void {
  write(root, "src/app.ts", "export const answer = 41;\n");
  write(root, "src/util.ts", "export {};\n");
  write(root, "old/a.txt", "a\n");
  write(root, "old/b.txt", "b\n", 0o600);
  fs.chmodSync(path.join(root, "old"), 0o700);
  write(root, "run.sh", "#!/bin/sh\necho run\n");
  write(root, "notes.txt", "kept as is\n", 0o640);
  symlink(root, "app-link", "src/app.ts");
  symlink(root, "etc-link", "/etc"); // the agent deletes it; an undo must put it back as it was
}

/** The fix-all trial's work: every kind of change. */
function fixAll(ws: string): void {
  fs.writeFileSync(path.join(ws, "src/app.ts"), "export const answer = 42;\n");
  fs.rmSync(path.join(ws, "old"), { recursive: true });
  fs.chmodSync(path.join(ws, "run.sh"), 0o755);
  fs.rmSync(path.join(ws, "etc-link"));
  fs.rmSync(path.join(ws, "app-link"));
  symlink(ws, "app-link", "src/util.ts");
  write(ws, "new dir/deep/added.txt", "added\n");
  write(ws, NON_UTF8, "latin1 name\n");
  write(ws, "bin/tool", "#!/bin/sh\n", 0o755);
}

/** A project with a snapshot, and a study whose trials' workspaces were edited by `edits`. */
async function studyOf(edits: ((ws: string) => void)[]) {
  const root = tempDir("keep-project");
  baseline(root);
  const project = await admin().projects.add({ hostPath: root });
  const snapshot = await admin().snapshots.create({ projectId: project.id });
  const study = await db.study.create({
    data: {
      projectId: project.id,
      title: "Fix the calendar",
      taskPrompt: "Fix it.",
      testCommand: "node --test",
      snapshotId: snapshot.id,
      state: "done",
      configurations: { create: [{ position: 1, model: "gpt-5-codex", reasoningEffort: "high", repeats: 3 }] },
    },
    include: { configurations: true },
  });
  const trials: { id: string; workspacePath: string }[] = [];
  for (const [index, edit] of edits.entries()) {
    const workspace = await admin().workspaces.create({ snapshotId: snapshot.id });
    edit(workspace.path);
    const trial = await db.trial.create({
      data: {
        studyId: study.id,
        configurationId: study.configurations[0]?.id ?? "",
        state: "succeeded",
        workspaceId: workspace.id,
        queuedAt: new Date(Date.now() + index),
      },
    });
    trials.push({ id: trial.id, workspacePath: workspace.path });
  }
  const running = await db.trial.create({
    data: { studyId: study.id, configurationId: study.configurations[0]?.id ?? "", state: "agent" },
  });
  return { root, projectId: project.id, studyId: study.id, trials, runningTrialId: running.id };
}

describe("choosing a study's result", () => {
  it("chooses, changes and clears the chosen trial, tells the team, and refuses viewers", async () => {
    const { root, studyId, trials, runningTrialId } = await studyOf([fixAll, (ws) => write(ws, "x.txt", "x\n")]);
    const before = listTree(root);
    const [first, second] = trials;
    const chosen = await admin().studies.choose({ studyId, trialId: first?.id ?? "", note: "  Smallest diff.  " });
    expect(chosen.chosen).toMatchObject({ trialId: first?.id, note: "Smallest diff.", by: "admin" });
    expect((await admin().studies.list({})).find((study) => study.id === studyId)?.chosen?.trialId).toBe(first?.id);

    const changed = await admin().studies.choose({ studyId, trialId: second?.id ?? "" });
    expect(changed.chosen).toMatchObject({ trialId: second?.id, note: null });

    await expect(admin().studies.choose({ studyId, trialId: runningTrialId })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("only a finished trial can be chosen") as unknown,
    });
    await expect(admin().studies.choose({ studyId, trialId: "elsewhere" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(
      admin().studies.choose({ studyId, trialId: second?.id ?? "", note: "x".repeat(2001) }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(viewer().studies.choose({ studyId, trialId: first?.id ?? "" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect((await viewer().studies.get({ studyId })).chosen?.trialId).toBe(second?.id);

    const cleared = await admin().studies.choose({ studyId, trialId: null });
    expect(cleared.chosen).toBeNull();
    expect(listTree(root)).toEqual(before); // choosing changes no project files

    const redis = connectRedis({ url: REDIS_URL, name: "keep-a-result-events" });
    const entries = await redis.xrange("invariant:events", "-", "+");
    redis.disconnect();
    const reasons = entries
      .map(
        ([, fields]) => JSON.parse(fields[1] ?? "{}") as { type: string; studyId?: string; data: { reason: string } },
      )
      .filter((event) => event.type === "study.changed" && event.studyId === studyId)
      .map((event) => event.data.reason);
    expect(reasons).toEqual([
      `Trial ${first?.id} chosen as the result by admin: Smallest diff.`,
      `Trial ${second?.id} chosen as the result by admin.`,
      "Chosen result cleared by admin.",
    ]);
  });

  it("puts the chosen trial and its note in the Markdown, JSON and CSV reports", async () => {
    const { studyId, trials } = await studyOf([fixAll]);
    await admin().studies.choose({ studyId, trialId: trials[0]?.id ?? "", note: "Keep this one." });
    const json = JSON.parse((await services.studies.report({ studyId, format: "json" })).body) as {
      chosen: { trialId: string; note: string };
    };
    expect(json.chosen).toMatchObject({ trialId: trials[0]?.id, note: "Keep this one." });
    const markdown = (await services.studies.report({ studyId, format: "md" })).body;
    expect(markdown).toContain("## Chosen result");
    expect(markdown).toContain("> Keep this one.");
    const csv = (await services.studies.report({ studyId, format: "csv" })).body.split("\r\n");
    expect(csv[0]).toMatch(
      /,chosen,chosen_note,captured_changed,tests_missing,cost_usd,test_config_changed,trial,parent_trial_id$/,
    );
    expect(csv.filter((line) => line.includes(",1,Keep this one.,"))).toHaveLength(1);
  });
});

describe("applying a trial and undoing it", () => {
  const skipGit = (rel: string) => rel === ".git";

  it("applies a trial's workspace, lists it in the history, and undo restores the project byte for byte", async () => {
    const { root, projectId, studyId, trials } = await studyOf([fixAll]);
    const trial = trials[0] ?? { id: "", workspacePath: "" };
    const before = listTree(root);
    const preview = await admin().applies.previewTrial({ trialId: trial.id });
    expect(preview).toMatchObject({ trialId: trial.id, conflicts: [] });
    await expect(viewer().applies.runTrial({ trialId: trial.id, planHash: preview.planHash })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect(listTree(root)).toEqual(before);

    const applied = await admin().applies.runTrial({ trialId: trial.id, planHash: preview.planHash });
    expect(applied).toMatchObject({ outcome: "applied", appliedBy: "admin", trialId: trial.id, studyId });
    // the project now has the workspace's files (notes.txt is untouched: it keeps its own 640 in the project)
    const skip = (rel: string) => skipGit(rel) || rel === "notes.txt";
    expect(listTree(root, { skip })).toEqual(listTree(trial.workspacePath, { skip }));
    expect(fs.existsSync(dataDirPaths(dataDir).applyBackup(applied.id).tree)).toBe(true);

    const [record] = await viewer().applies.history({ projectId });
    expect(record).toMatchObject({
      id: applied.id,
      appliedBy: "admin",
      trialId: trial.id,
      studyId,
      studyTitle: "Fix the calendar",
      configurationLabel: "Configuration 1: gpt-5-codex, high effort",
      outcome: "applied",
      undoable: true,
      undoneBy: null,
    });
    expect(record?.files).toEqual(expect.arrayContaining([{ path: "src/app.ts", action: "modify" }]));

    await expect(viewer().applies.undo({ recordId: applied.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const undone = await admin().applies.undo({ recordId: applied.id });
    expect(undone).toMatchObject({ outcome: "undone", undoOf: applied.id, appliedBy: "admin", conflicts: [] });
    expect(listTree(root)).toEqual(before); // names, types, modes (old/ is 700 again), bytes, link targets
    expect(fs.readdirSync(root).filter((name) => name.startsWith(".invariant-apply-"))).toEqual([]);
    expect(fs.existsSync(dataDirPaths(dataDir).applyBackup(applied.id).dir)).toBe(false);

    await expect(admin().applies.undo({ recordId: applied.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("already undone") as unknown,
    });
    await expect(admin().applies.undo({ recordId: undone.id })).rejects.toMatchObject({ code: "CONFLICT" });
    const history = await admin().applies.history({ projectId });
    expect(history.map((entry) => [entry.outcome, entry.undoable])).toEqual([
      ["undone", false],
      ["applied", false],
    ]);
    expect(history[1]?.undoneBy).toBe(undone.id);
    expect(listTree(root)).toEqual(before);
  });

  it("refuses an undo when a file the apply touched changed since, names it, and writes nothing", async () => {
    const { root, projectId, trials } = await studyOf([fixAll]);
    const trialId = trials[0]?.id ?? "";
    const original = listTree(root);
    const preview = await admin().applies.previewTrial({ trialId });
    const applied = await admin().applies.runTrial({ trialId, planHash: preview.planHash });
    fs.writeFileSync(path.join(root, "src/app.ts"), "export const answer = 43; // edited after the apply\n");
    write(root, "old/a.txt", "recreated by the user\n");
    const edited = listTree(root);

    const refused = await admin().applies.undo({ recordId: applied.id });
    expect(refused).toMatchObject({ outcome: "refused", undoOf: applied.id });
    expect(refused.conflicts.map((conflict) => [conflict.path, conflict.reason, conflict.message])).toEqual([
      ["old/a.txt", "exists", "old/a.txt: a file was created here since the apply."],
      ["src/app.ts", "changed", "src/app.ts was changed in the project since the apply."],
    ]);
    expect(listTree(root)).toEqual(edited);
    expect((await admin().applies.history({ projectId }))[1]).toMatchObject({ id: applied.id, undoable: true });

    // put the apply's state back, and the undo goes through
    fs.writeFileSync(path.join(root, "src/app.ts"), "export const answer = 42;\n");
    fs.rmSync(path.join(root, "old"), { recursive: true });
    expect((await admin().applies.undo({ recordId: applied.id })).outcome).toBe("undone");
    expect(listTree(root)).toEqual(original);
  });

  it("refuses a trial whose files conflict with the project, lists them with their current state, and writes nothing", async () => {
    const { root, trials } = await studyOf([fixAll]);
    const trialId = trials[0]?.id ?? "";
    const userEdit = "export const answer = 40; // the user's own fix\n";
    fs.writeFileSync(path.join(root, "src/app.ts"), userEdit);
    const before = listTree(root);
    const preview = await admin().applies.previewTrial({ trialId });
    expect(preview.conflicts).toEqual([
      {
        path: "src/app.ts",
        reason: "changed",
        message: "src/app.ts was changed in the project since the snapshot.",
        current: { exists: true, type: "file", mode: "100644", size: userEdit.length, sha256: sha(userEdit) },
      },
    ]);
    const refused = await admin().applies.runTrial({ trialId, planHash: preview.planHash });
    expect(refused).toMatchObject({ outcome: "refused", trialId, conflicts: [{ path: "src/app.ts" }] });
    expect(listTree(root)).toEqual(before);
    expect(read(root, "src/app.ts").toString()).toBe(userEdit);
  });

  it("removing the project removes the backups its applies kept", async () => {
    const { projectId, trials } = await studyOf([fixAll]);
    const trialId = trials[0]?.id ?? "";
    const applied = await admin().applies.runTrial({
      trialId,
      planHash: (await admin().applies.previewTrial({ trialId })).planHash,
    });
    const kept = dataDirPaths(dataDir).applyBackup(applied.id).dir;
    expect(fs.existsSync(kept)).toBe(true);
    await admin().projects.remove({ id: projectId });
    expect(fs.existsSync(kept)).toBe(false);
  });

  it("undoes only the most recent apply, one after the other", async () => {
    const { root, projectId, trials, runningTrialId } = await studyOf([
      (ws) => write(ws, "first.txt", "first\n"),
      (ws) => fs.writeFileSync(path.join(ws, "src/util.ts"), "export const second = true;\n"),
    ]);
    const original = listTree(root);
    const [first, second] = trials;
    const applyTrial = async (trialId: string) =>
      admin().applies.runTrial({ trialId, planHash: (await admin().applies.previewTrial({ trialId })).planHash });
    const a = await applyTrial(first?.id ?? "");
    const afterA = listTree(root);
    const b = await applyTrial(second?.id ?? "");
    expect([a.outcome, b.outcome]).toEqual(["applied", "applied"]);
    expect((await admin().applies.history({ projectId })).map((entry) => entry.undoable)).toEqual([true, false]);
    await expect(admin().applies.undo({ recordId: a.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("Only the most recent apply") as unknown,
    });
    await expect(admin().applies.previewTrial({ trialId: runningTrialId })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect((await admin().applies.undo({ recordId: b.id })).outcome).toBe("undone");
    expect(listTree(root)).toEqual(afterA);
    expect((await admin().applies.undo({ recordId: a.id })).outcome).toBe("undone");
    expect(listTree(root)).toEqual(original);
  });
});
