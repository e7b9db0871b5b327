import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, symlink, write } from "../../../../test/support/file-trees";
import { migratedDb, tempDir } from "../../../../test/support/temp";
import { BASE_IMAGE } from "../../../../test/support/environment-harness";
import { createApplyQueries } from "../../web/apply/apply.queries";
import { createApplyService } from "../../web/apply/apply-service";
import type { Db } from "../db/client";
import { diffWorkspace, type WorkspaceDiff } from "../diffs/workspace-diff";
import { createProjectQueries } from "../../web/projects/projects.queries";
import { createProjectService } from "../../web/projects/project-service";
import { createDiffCache, sideRoot } from "../../web/review/diff-cache";
import { workspaceSide } from "../../web/review/file-sides";
import { LABEL, type Mount } from "../runtime/container-spec";
import { createDockerRuntime } from "../runtime/docker-runtime";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { dataDirMountPolicy } from "../runtime/mount-policy";
import { reconcileContainers } from "../runtime/reconciler";
import { readManifest, type Manifest } from "../snapshots/manifest";
import { createSnapshotQueries } from "../../web/snapshots/snapshots.queries";
import { createSnapshotService } from "../../web/snapshots/snapshot-service";
import { dataDirPaths } from "../storage/data-dir";
import { storeTestFiles } from "../trial-records/test-files";
import { evaluationMount, prepareEvaluationLayer } from "../../worker/trials/evaluation-layer";
import { fromText } from "../../../lib/files/byte-path";
import { materializeSnapshot } from "./materialize-snapshot";
import { flattenLayerInto } from "./overlay-workspace";
import { chooseWorkspaceKind, resetWorkspaceKindProbe } from "./workspace-kind";
import { workspaceFiles } from "./workspace-files";
import { workspaceMount } from "./workspace-mount";
import { copyWorkspace, createWorkspace, removeWorkspace, type WorkspaceInfo } from "./workspace-store";

/**
 * Copy-on-write workspaces on the real engine: made without copying, written by a real container through
 * a Docker overlay volume, diffed from the upper layer alone, evaluated on a fresh layer with the captured
 * files restored, reviewed and applied, removed without a trace; and the probe that picks the kind.
 */
let db: Db;
let dataDir: string;
let runtime: ContainerRuntime;
let project: string;
let projectId: string;
let snapshotId: string;
let manifest: Manifest;

const AGENT_SCRIPT = [
  "set -e",
  "cd /workspace",
  "printf 'line 1\\nline two\\n' > src/app.ts", // modified
  "rm notes/empty.txt", // deleted
  "mv 'dir with spaces/a b.txt' moved.txt", // renamed: deleted + added
  "chmod 644 bin/tool", // mode change
  "ln -s app.ts src/link", // new symlink
  "rm -r old && mkdir old && echo fresh > old/new.txt", // opaque directory: old/* gone, old/new.txt added
  "cat same.txt > /tmp/same && cat /tmp/same > same.txt", // copied up, byte-identical: no change
  "mkdir -p node_modules/x && echo ignored > node_modules/x/index.js", // ignored by .gitignore
  "rm tests/app.test.js", // the agent deletes a captured test
  "mkdir .pytest_cache && echo planted > .pytest_cache/lastfailed",
].join("\n");

/** Runs a script in a container of the base image with `mount` at /workspace, through our runtime. */
async function runContainer(mount: Mount, script: string): Promise<{ exitCode: number; output: string }> {
  const id = await runtime.createContainer({
    image: BASE_IMAGE,
    command: ["/bin/sh", "-c", script],
    labels: { project: projectId, role: "agent" },
    limits: { cpus: 1, memoryBytes: 256 * 1024 ** 2, swapBytes: 0, pids: 64 },
    network: "none",
    mounts: [mount],
  });
  let output = "";
  try {
    const { exitCode } = await runtime.runToExit(id, (text) => (output += text), { timeoutMs: 60_000 });
    return { exitCode, output };
  } finally {
    await runtime.removeContainer(id);
  }
}

function volumesOf(id: string): string[] {
  const result = spawnSync("docker", ["volume", "ls", "-q", "--filter", `label=${LABEL.project}=${id}`], {
    encoding: "utf8",
  });
  return result.stdout.split("\n").filter(Boolean);
}

const summary = (diff: WorkspaceDiff) =>
  diff.changes.map((change) => `${change.status} ${change.path}${change.modeChanged ? " (mode)" : ""}`);

beforeAll(async () => {
  ({ db, dataDir } = await migratedDb());
  runtime = createDockerRuntime({ dataDir, mountPolicy: dataDirMountPolicy({ dataDir }) });
  project = tempDir("cow-project");
  write(project, "src/app.ts", "line 1\nline 2\n");
  write(project, "bin/tool", "#!/bin/sh\n", 0o755);
  write(project, "notes/empty.txt", "");
  write(project, "dir with spaces/a b.txt", "spaces\n");
  write(project, "old/a.txt", "a\n");
  write(project, "old/deep/b.txt", "b\n");
  write(project, "same.txt", "same\n");
  write(project, "tests/app.test.js", "test('x', () => {});\n");
  write(project, ".gitignore", "node_modules/\n");
  symlink(project, "src/self", "app.ts");
  const projects = createProjectService({
    projects: createProjectQueries(db),
    dataDir,
    host: { cpus: 2, memoryBytes: 8 * 1024 ** 3 },
  });
  projectId = (await projects.add({ hostPath: project })).id;
  const snapshots = createSnapshotService({
    dataDir,
    projects: createProjectQueries(db),
    snapshots: createSnapshotQueries(db),
  });
  snapshotId = (await snapshots.create({ projectId })).id;
  manifest = await readManifest({ dataDir, snapshotId });
});
afterAll(() => db.$disconnect());

describe("a copy-on-write workspace", () => {
  let workspace: WorkspaceInfo;
  let diff: WorkspaceDiff;

  it("is made without copying: the snapshot's tree is shared, the workspace holds an empty layer", async () => {
    workspace = await createWorkspace({ dataDir, snapshotId, kind: "overlay" });
    const second = await createWorkspace({ dataDir, snapshotId, kind: "overlay" });
    const lower = dataDirPaths(dataDir).snapshot(snapshotId).tree;
    expect(workspace.kind).toBe("overlay");
    expect(workspace.overlay?.lower).toBe(lower);
    expect(second.overlay?.lower).toBe(lower);
    expect(fs.readdirSync(workspace.dir).sort()).toEqual(["git", "meta.json", "upper", "work"]);
    expect(fs.readdirSync(workspace.path)).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(workspace.dir, "meta.json"), "utf8"))).toMatchObject({
      kind: "overlay",
    });
    expect(read(lower, "src/app.ts").toString()).toBe("line 1\nline 2\n");
    // the shared tree was written once, atomically
    expect(fs.readdirSync(path.dirname(lower)).filter((name) => name.startsWith(".tmp-tree-"))).toEqual([]);
    await removeWorkspace({ dataDir, workspaceId: second.id });
  });

  it("takes a container's writes, deletions, rename, chmod and symlink in its upper layer, and the diff lists exactly those", async () => {
    const ran = await runContainer(
      workspaceMount({ path: workspace.path, overlay: workspace.overlay, containerPath: "/workspace" }),
      AGENT_SCRIPT,
    );
    expect(ran).toMatchObject({ exitCode: 0 });
    expect(read(dataDirPaths(dataDir).snapshot(snapshotId).tree, "src/app.ts").toString()).toBe("line 1\nline 2\n");
    diff = await diffWorkspace({
      dataDir,
      manifest,
      workspaceRoot: workspace.path,
      overlayLower: workspace.overlay?.lower,
    });
    expect(summary(diff)).toEqual([
      "modified bin/tool (mode)",
      "deleted dir with spaces/a b.txt",
      "added moved.txt",
      "deleted notes/empty.txt",
      "deleted old/a.txt",
      "deleted old/deep/b.txt",
      "added old/new.txt",
      "modified src/app.ts",
      "added src/link",
      "deleted tests/app.test.js",
    ]);
    expect(diff.changes.find((change) => change.path === "src/app.ts")?.patch).toContain("-line 2\n+line two\n");
    // the same answer as a full walk of the merged view written out as plain files
    const flat = tempDir("cow-flat");
    await materializeSnapshot({ dataDir, manifest, tree: flat });
    await flattenLayerInto({ upper: workspace.path, tree: flat });
    const full = await diffWorkspace({ dataDir, manifest, workspaceRoot: flat });
    expect(summary(full)).toEqual(summary(diff));
    expect(full.totals).toEqual(diff.totals);
  });

  it("is read on the host as its merged view: upper first, then the snapshot's tree, whiteouts honoured", async () => {
    const files = workspaceFiles(workspace);
    expect((await files.readFile("src/app.ts", 1024)).toString()).toBe("line 1\nline two\n");
    expect((await files.readFile("same.txt", 1024)).toString()).toBe("same\n");
    await expect(files.readFile("notes/empty.txt", 1024)).rejects.toThrow(/gone/);
    await expect(files.readFile("old/a.txt", 1024)).rejects.toThrow(/gone/);
    expect((await files.readdir("old")).sort()).toEqual(["new.txt"]);
    expect(await files.kind("src/link")).toBe("symlink");
    // the review's sides: a change from the upper layer, an unchanged file from the snapshot's tree
    const cache = createDiffCache({ dataDir });
    const review = await cache.get({ workspaceId: workspace.id, stamp: "1", live: false });
    expect(review.changes).toHaveLength(diff.changes.length);
    const changed = await workspaceSide({
      root: sideRoot(review, fromText("src/app.ts")),
      path: fromText("src/app.ts"),
      known: null,
    });
    const same = await workspaceSide({
      root: sideRoot(review, fromText("same.txt")),
      path: fromText("same.txt"),
      known: null,
    });
    expect([changed.text, same.text]).toEqual(["line 1\nline two\n", "same\n"]);
  });

  it("is evaluated on a fresh layer: the captured test restored, stale runner state hidden, the agent's layer untouched", async () => {
    const studyId = "cow-study";
    const data = fs.readFileSync(path.join(project, "tests/app.test.js"));
    const files = await storeTestFiles({
      dataDir,
      studyId,
      files: [
        { path: "tests/app.test.js", role: "test", data, sha256: createHash("sha256").update(data).digest("hex") },
      ],
    });
    const upper = path.join(dataDir, "trials", "cow-eval", "upper");
    const workDir = path.join(path.dirname(upper), "work");
    fs.mkdirSync(upper, { recursive: true });
    fs.mkdirSync(workDir);
    const below = [workspace.path, workspace.overlay?.lower ?? ""];
    await prepareEvaluationLayer({ dataDir, studyId, upper, below, files });
    const ran = await runContainer(
      evaluationMount({ upper, workDir, below }),
      "cd /workspace && cat tests/app.test.js && ls -A .pytest_cache | wc -l && cat src/app.ts && echo result > junit.xml",
    );
    expect(ran.exitCode).toBe(0);
    expect(ran.output).toBe("test('x', () => {});\n0\nline 1\nline two\n");
    expect(read(upper, "junit.xml").toString()).toBe("result\n");
    expect(fs.existsSync(path.join(workspace.path, "junit.xml"))).toBe(false);
    expect(fs.lstatSync(path.join(workspace.path, "tests", "app.test.js")).isCharacterDevice()).toBe(true);
  });

  it("is applied to its project through the reviewed plan, and copied for a session (O(changed files))", async () => {
    const apply = createApplyService({ dataDir, projects: createProjectQueries(db), records: createApplyQueries(db) });
    const preview = await apply.preview({ workspaceId: workspace.id });
    expect(preview.conflicts).toEqual([]);
    const result = await apply.run({ workspaceId: workspace.id, planHash: preview.planHash, appliedBy: "tester" });
    expect(result.outcome).toBe("applied");
    expect(read(project, "src/app.ts").toString()).toBe("line 1\nline two\n");
    expect(fs.readlinkSync(path.join(project, "src/link"))).toBe("app.ts");
    expect(fs.existsSync(path.join(project, "old/a.txt"))).toBe(false);
    expect(read(project, "old/new.txt").toString()).toBe("fresh\n");
    expect(fs.statSync(path.join(project, "bin/tool")).mode & 0o777).toBe(0o644);
    const copy = await copyWorkspace({ dataDir, workspaceId: workspace.id });
    expect(copy.kind).toBe("overlay");
    const copied = await diffWorkspace({
      dataDir,
      manifest,
      workspaceRoot: copy.path,
      overlayLower: copy.overlay?.lower,
    });
    expect(summary(copied)).toEqual(summary(diff));
    await removeWorkspace({ dataDir, workspaceId: copy.id });
  });

  it("is removed completely, and no overlay volume is left in Docker", async () => {
    await expect(removeWorkspace({ dataDir, workspaceId: workspace.id })).resolves.toEqual({ removed: true });
    expect(fs.existsSync(workspace.dir)).toBe(false);
    expect(volumesOf(projectId)).toEqual([]);
  });
});

describe("an overlay volume a crash left behind", () => {
  it("is labelled like its container and removed by the reconciler once no container uses it", async () => {
    const workspace = await createWorkspace({ dataDir, snapshotId, kind: "overlay" });
    const worker = { id: "cow-worker", host: "cow-host", pid: 999_999, instance: `cow-${process.pid}` };
    const id = await runtime.createContainer({
      image: BASE_IMAGE,
      command: ["/bin/true"],
      labels: { project: projectId, role: "agent", worker },
      limits: { cpus: 1, memoryBytes: 128 * 1024 ** 2, swapBytes: 0, pids: 16 },
      network: "none",
      mounts: [workspaceMount({ path: workspace.path, overlay: workspace.overlay, containerPath: "/workspace" })],
    });
    const [volume] = volumesOf(projectId);
    expect(volume).toBeTruthy();
    // the container goes the way a crash or a hand leaves it: without its volumes
    expect(spawnSync("docker", ["rm", "-f", id]).status).toBe(0);
    expect(volumesOf(projectId)).toEqual([volume]);
    const report = await reconcileContainers({
      runtime,
      self: { id: "another", host: "cow-host", instance: worker.instance },
      active: new Set(),
      liveWorkers: () => Promise.resolve(new Set()),
      isProcessAlive: () => false,
      publish: () => Promise.resolve(),
      log: () => undefined,
      volumeMinAgeMs: 0,
    });
    expect(report.volumes).toEqual([volume]);
    expect(volumesOf(projectId)).toEqual([]);
    await removeWorkspace({ dataDir, workspaceId: workspace.id });
  });
});

describe("the kind of workspace", () => {
  it("is overlay where the probe's container can use an overlay volume, and a copy when the probe fails", async () => {
    resetWorkspaceKindProbe();
    expect(await chooseWorkspaceKind({ runtime, dataDir, image: BASE_IMAGE })).toBe("overlay");
    resetWorkspaceKindProbe();
    const failing: ContainerRuntime = { ...runtime, storageDriver: () => Promise.resolve("vfs") };
    const logged: string[] = [];
    expect(
      await chooseWorkspaceKind({ runtime: failing, dataDir, image: BASE_IMAGE, log: (line) => logged.push(line) }),
    ).toBe("copy");
    // the answer is kept for the process: the next call does not probe again
    expect(await chooseWorkspaceKind({ runtime, dataDir, image: BASE_IMAGE })).toBe("copy");
    expect(logged.join("\n")).toContain("storage driver is vfs");
    resetWorkspaceKindProbe();
    const broken: ContainerRuntime = {
      ...runtime,
      createContainer: () => Promise.reject(new Error("no overlay here")),
    };
    expect(await chooseWorkspaceKind({ runtime: broken, dataDir, image: BASE_IMAGE })).toBe("copy");
    expect(await chooseWorkspaceKind({ setting: "overlay", runtime: broken, dataDir, image: BASE_IMAGE })).toBe(
      "overlay",
    );
    resetWorkspaceKindProbe();
    expect(fs.readdirSync(dataDirPaths(dataDir).workspaces).filter((name) => name.startsWith(".probe-"))).toEqual([]);
  });
});
