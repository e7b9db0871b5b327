import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { listTree, write } from "../../../../test/support/file-trees";
import { migratedDb, redisUrlFor, tempDir } from "../../../../test/support/temp";
import { createAppServices, type AppServices } from "../wiring/app-services";
import type { Db } from "../../core/db/client";
import { connectRedis } from "../../core/redis/connection";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { appRouter } from "../trpc/app-router";
import { createCallerFactory } from "../trpc/init";

/**
 * A trial just applied is "applied", not "in conflict": on real SQLite, Redis and files, previewing
 * it again names the apply (who, when, whether Undo is possible) and the study lists it as applied,
 * until an undo, a later edit of its files, or a later apply on top changes that.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 27);

let db: Db;
let services: AppServices;
const createCaller = createCallerFactory(appRouter);
const admin = () => createCaller({ identity: { role: "admin", subject: "admin" }, services });
const viewer = () => createCaller({ identity: { role: "viewer", subject: "link-1" }, services });

beforeAll(async () => {
  let dataDir: string;
  ({ db, dataDir } = await migratedDb());
  const redis = connectRedis({ url: REDIS_URL, name: "applied-state-test" });
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

/** A project with a snapshot, and a finished study whose trials' workspaces were edited by `edits`. */
async function studyOf(edits: ((ws: string) => void)[]) {
  const root = tempDir("applied-project");
  write(root, "src/app.ts", "export const answer = 41;\n");
  write(root, "src/util.ts", "export {};\n");
  const project = await admin().projects.add({ hostPath: root });
  const snapshot = await admin().snapshots.create({ projectId: project.id });
  const study = await db.study.create({
    data: {
      projectId: project.id,
      title: "Fix it",
      taskPrompt: "Fix it.",
      testCommand: "node --test",
      snapshotId: snapshot.id,
      state: "done",
      configurations: { create: [{ position: 1, model: "gpt-5-codex", reasoningEffort: "high", repeats: 2 }] },
    },
    include: { configurations: true },
  });
  const trialIds: string[] = [];
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
    trialIds.push(trial.id);
  }
  return { root, studyId: study.id, trialIds };
}

const fix = (ws: string) => {
  fs.writeFileSync(path.join(ws, "src/app.ts"), "export const answer = 42;\n");
  write(ws, "src/new.ts", "export const added = true;\n");
};
const applyTrial = async (trialId: string) =>
  admin().applies.runTrial({ trialId, planHash: (await admin().applies.previewTrial({ trialId })).planHash });

describe("a trial's applied state", () => {
  it("previewing a trial just applied names the apply with Undo, not its own files as conflicts", async () => {
    const { root, studyId, trialIds } = await studyOf([fix]);
    const trialId = trialIds[0] ?? "";
    const original = listTree(root);
    expect(await admin().applies.previewTrial({ trialId })).toMatchObject({ applied: null, conflicts: [] });
    expect(await viewer().applies.appliedTrials({ studyId })).toEqual([]);

    const applied = await applyTrial(trialId);
    expect(applied.outcome).toBe("applied");
    const again = await admin().applies.previewTrial({ trialId });
    expect(again.applied).toEqual({
      trialId,
      recordId: applied.id,
      projectId: applied.projectId,
      appliedAt: applied.createdAt,
      appliedBy: "admin",
      files: 2,
      undoable: true,
    });
    expect(again.conflicts.length).toBeGreaterThan(0); // the apply itself: the UI shows Undo instead
    expect(await viewer().applies.appliedTrials({ studyId })).toEqual([again.applied]);

    expect((await admin().applies.undo({ recordId: applied.id })).outcome).toBe("undone");
    expect(listTree(root)).toEqual(original);
    expect(await admin().applies.previewTrial({ trialId })).toMatchObject({ applied: null, conflicts: [] });
    expect(await viewer().applies.appliedTrials({ studyId })).toEqual([]);
  });

  it("an apply whose files were edited since is no longer 'applied': the preview shows the conflicts", async () => {
    const { root, studyId, trialIds } = await studyOf([fix]);
    const trialId = trialIds[0] ?? "";
    await applyTrial(trialId);
    fs.writeFileSync(path.join(root, "src/new.ts"), "// the user's edit after the apply\n");
    const preview = await admin().applies.previewTrial({ trialId });
    expect(preview.applied).toBeNull();
    expect(preview.conflicts.map((conflict) => conflict.path).sort()).toEqual(["src/app.ts", "src/new.ts"]);
    expect(await admin().applies.appliedTrials({ studyId })).toEqual([]);
  });

  it("an apply with a later one on top stays applied but cannot be undone before the later one", async () => {
    const { studyId, trialIds } = await studyOf([
      (ws) => write(ws, "first.txt", "first\n"),
      (ws) => fs.writeFileSync(path.join(ws, "src/util.ts"), "export const second = true;\n"),
    ]);
    const [first = "", second = ""] = trialIds;
    const a = await applyTrial(first);
    const b = await applyTrial(second);
    const applied = await admin().applies.appliedTrials({ studyId });
    expect(applied.map((view) => [view.trialId, view.recordId, view.undoable]).sort()).toEqual(
      [
        [first, a.id, false],
        [second, b.id, true],
      ].sort(),
    );
    await admin().applies.undo({ recordId: b.id });
    expect((await admin().applies.previewTrial({ trialId: first })).applied).toMatchObject({
      recordId: a.id,
      undoable: true,
    });
    await expect(admin().applies.appliedTrials({ studyId: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
