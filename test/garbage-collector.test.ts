import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { createGarbageCollector } from "../src/server/web/cleanup/garbage-collector";
import { createStorageReferenceQueries } from "../src/server/web/cleanup/storage-references.queries";
import { openWebCore, type WebCore } from "../src/server/web/wiring/web-core";
import { imagesWithLabel, labelledImage, removeImageQuietly } from "./support/labelled-image";
import { REPO_ROOT, tempDir } from "./support/temp";

/**
 * Issue 18: the garbage collector removes what no row and no live run refers to — an orphan workspace,
 * an orphan committed trial image, an environment image of a deleted version, the folder of a deleted
 * trial, the gateway socket of a dead worker — and keeps what a row, an open trial, an unfinished
 * session or a listening worker still uses, and everything of projects that are not this data dir's.
 * Real SQLite, real Docker, a real data dir.
 */
const runtime = createDockerRuntime();
let redis: PrivateRedis;
let dataDir: string;
let core: WebCore;
const logged: string[] = [];
const images: string[] = [];
let live: net.Server;

beforeAll(async () => {
  redis = await startPrivateRedis({ dataDir: tempDir("gc-redis") });
  dataDir = tempDir("gc-data");
  core = await openWebCore({
    root: REPO_ROOT,
    dataDir,
    redisUrl: redis.url,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime,
    log: (line) => logged.push(line),
    garbage: { minAgeMs: 0 },
  });
  await core.start({ upkeep: false }); // the test runs the collections itself
}, 120_000);

afterAll(async () => {
  live?.close();
  await core.close();
  await redis.stop();
  for (const id of images) removeImageQuietly(id);
});

const workspace = (id: string, projectId = "p") => {
  const dir = path.join(dataDir, "workspaces", id);
  fs.mkdirSync(path.join(dir, "tree"), { recursive: true });
  fs.writeFileSync(path.join(dir, "meta.json"), JSON.stringify({ id, projectId, snapshotId: "s", createdAt: "" }));
  return dir;
};

/** A socket file left by a process that was killed while listening (nothing unlinks it). */
function deadWorkerSocket(file: string): void {
  const script = `require("net").createServer().listen(${JSON.stringify(file)}, () => process.kill(process.pid, "SIGKILL"))`;
  spawnSync(process.execPath, ["-e", script]);
}

async function rows() {
  const project = await core.services.projects.add({ hostPath: tempDir("gc-project") });
  const version = await core.db.environmentVersion.create({
    data: { projectId: project.id, version: 1, imageTag: "invariant-env/gc:v1", origin: "base", status: "ready" },
  });
  const study = await core.db.study.create({
    data: {
      projectId: project.id,
      title: "gc",
      taskPrompt: "t",
      testCommand: "true",
      state: "running",
      configurations: { create: { position: 1, model: "m" } },
    },
    include: { configurations: true },
  });
  const trial = (state: string, workspaceId: string | null) =>
    core.db.trial.create({
      data: { studyId: study.id, configurationId: study.configurations[0]?.id ?? "", state, workspaceId },
    });
  return { project, version, study, trial };
}

describe("the garbage collector", () => {
  it("removes orphan workspaces, images, folders and dead workers' sockets, and keeps everything in use", async () => {
    const { project, version, study, trial } = await rows();
    const ids = { used: `ws-${"a".repeat(24)}`, session: `ws-${"b".repeat(24)}`, orphan: `ws-${"c".repeat(24)}` };
    const finished = await trial("succeeded", ids.used);
    const running = await trial("agent", null); // its workspace and image are not on record yet
    await core.db.session.create({
      data: { projectId: project.id, kind: "shell", workspaceId: ids.session, state: "exited" },
    });
    for (const id of Object.values(ids)) workspace(id);
    // a preflight's workspace is on no record while it runs: its project's are kept
    const other = await core.services.projects.add({ hostPath: tempDir("gc-other") });
    await core.db.study.create({
      data: { projectId: other.id, title: "p", taskPrompt: "t", testCommand: "true", state: "preflight" },
    });
    const preflight = `ws-${"d".repeat(24)}`;
    workspace(preflight, other.id);
    fs.mkdirSync(path.join(dataDir, "workspaces", ".tmp-ws-0123"), { recursive: true }); // a cut-short build
    // folders: a trial that is gone, one that exists
    fs.mkdirSync(path.join(dataDir, "trials", "deletedtrial", "attempt-1"), { recursive: true });
    fs.mkdirSync(path.join(dataDir, "trials", finished.id, "attempt-1"), { recursive: true });

    const labels = { "invariant.managed": "true", "invariant.project": project.id };
    const trialLabels = (trialId: string) => ({ ...labels, "invariant.study": study.id, "invariant.trial": trialId });
    const made = {
      orphanTrial: labelledImage({ ...trialLabels("gonetrial"), "invariant.run": "gonetrial-1" }),
      openTrial: labelledImage({ ...trialLabels(running.id), "invariant.run": `${running.id}-1` }),
      recordedTrial: labelledImage({ ...trialLabels(finished.id), "invariant.run": `${finished.id}-1` }),
      // environment images carry the ownership labels of their prepare container, set empty
      version: labelledImage({ ...labels, "invariant.environment": version.id, "invariant.run": "" }),
      deletedVersion: labelledImage({ ...labels, "invariant.environment": "deletedversion", "invariant.run": "" }),
      otherProject: labelledImage({ ...labels, "invariant.project": "not-this-data-dirs", "invariant.run": "x-1" }),
    };
    images.push(...Object.values(made));
    await core.db.trial.update({ where: { id: finished.id }, data: { committedImageId: made.recordedTrial } });

    // an overlay volume no container uses (its container removed without it), one of another data dir's project
    const volume = (project: string) =>
      spawnSync(
        "docker",
        ["volume", "create", "--label", "invariant.managed=true", "--label", `invariant.project=${project}`],
        {
          encoding: "utf8",
        },
      ).stdout.trim();
    const danglingVolume = volume(project.id);
    const otherVolume = volume("not-this-data-dirs");
    await new Promise((resolve) => setTimeout(resolve, 1100)); // volumes' creation times are in whole seconds

    const sockets = path.join(dataDir, "gateway");
    fs.mkdirSync(sockets, { recursive: true });
    deadWorkerSocket(path.join(sockets, "vm-1-dead.sock"));
    live = net.createServer();
    await new Promise<void>((resolve) => live.listen(path.join(sockets, "vm-2-live.sock"), resolve));
    expect(fs.existsSync(path.join(sockets, "vm-1-dead.sock"))).toBe(true);

    // with the default minimum age nothing this young is touched
    const patient = createGarbageCollector({
      dataDir,
      runtime,
      references: () => createStorageReferenceQueries(core.db).references(),
      liveWorkers: () => Promise.resolve(new Set<string>()),
      log: () => undefined,
    });
    expect((await patient.collect()).removed).toEqual({
      workspaces: [],
      images: [],
      sockets: [],
      folders: [],
      volumes: [],
    });

    const report = await core.garbage.collect();
    expect(report.removed.workspaces.sort()).toEqual([".tmp-ws-0123", ids.orphan]);
    expect(report.removed.folders).toEqual(["trials/deletedtrial"]);
    expect(report.removed.sockets).toEqual(["gateway/vm-1-dead.sock"]);
    expect(report.removed.images).toHaveLength(2);
    expect(report.removed.volumes).toEqual([danglingVolume]);
    expect(spawnSync("docker", ["volume", "rm", otherVolume]).status).toBe(0); // another data dir's: left alone
    expect(report.kept).toEqual([]);
    const left = (id: string) => imagesWithLabel(`invariant.project=${project.id}`).includes(id);
    expect([left(made.orphanTrial), left(made.deletedVersion)]).toEqual([false, false]);
    expect([left(made.openTrial), left(made.recordedTrial), left(made.version)]).toEqual([true, true, true]);
    expect(imagesWithLabel("invariant.project=not-this-data-dirs")).toEqual([made.otherProject]);
    expect(fs.readdirSync(path.join(dataDir, "workspaces")).sort()).toEqual([ids.used, ids.session, preflight].sort());
    expect(fs.existsSync(path.join(dataDir, "trials", finished.id))).toBe(true);
    expect(fs.existsSync(path.join(sockets, "vm-2-live.sock"))).toBe(true);
    expect(logged.filter((line) => line.startsWith("storage: garbage collection removed"))).toEqual([
      expect.stringMatching(
        /removed 2 workspace\(s\) .*2 image\(s\) .*1 socket file\(s\) \(gateway\/vm-1-dead\.sock\)/,
      ),
    ]);
    expect(core.garbage.lastReport()).toEqual(report);
    // a second run finds nothing more
    expect((await core.garbage.collect()).removed).toEqual({
      workspaces: [],
      images: [],
      sockets: [],
      folders: [],
      volumes: [],
    });
  });
});
