// Copy-on-write workspaces on a generated 20,000-file / 200 MB project, each figure against a baseline
// measured in the same rounds (ours and the baseline interleaved, alternating which goes first; nothing
// synced or dropped between runs), median of BENCH_RUNS (default 5):
//   creation of an overlay workspace (the snapshot's tree already written)  vs `cp -a` of the tree   (target ≤ 0.05×)
//   the diff of 10 files a container changed (read from the upper layer)     vs `git diff --no-index --stat`
//                                                                               of the tree and a copy with the same changes (target ≤ 0.05×)
//   disk per trial: `du` of the workspace's own folders beyond the bytes of the changed files (target < 2 MB)
// The changes are made by a real container through the workspace's overlay volume (the base image).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import { generateTree } from "./generated-tree.mjs";
import { median, writeResult } from "./lib.mjs";

const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 5));
const FILES = 20_000;
const TOTAL_BYTES = 200 * 1000 * 1000;
const CHANGED = 10;
const IMAGE = process.env.BENCH_IMAGE ?? "invariant-base:bookworm";

const modules = await importBundle({
  name: "workspace-modules",
  exports: [
    'export { createSnapshot } from "./src/server/core/snapshots/snapshot-store";',
    'export { readManifest } from "./src/server/core/snapshots/manifest";',
    'export { createWorkspace, removeWorkspace } from "./src/server/core/workspaces/workspace-store";',
    'export { workspaceMount } from "./src/server/core/workspaces/workspace-mount";',
    'export { diffWorkspace } from "./src/server/core/diffs/workspace-diff";',
    'export { createDockerRuntime } from "./src/server/core/runtime/docker-runtime";',
    'export { dataDirMountPolicy } from "./src/server/core/runtime/mount-policy";',
  ],
});

/** The CHANGED files every round edits, relative to the tree (text files, one line each). */
const changedFiles = Array.from({ length: CHANGED }, (_, k) => {
  const i = 1 + k * 2001; // never a multiple of 20 (those are binary files)
  return `pkg-${i % 40}/module-${Math.floor(i / 40) % 25}/file-${i}.ts`;
});
const EDIT = changedFiles.map((rel) => `sed -i '4s/.*/changed line;/' '${rel}'`).join(" && ");

function time(task) {
  const began = performance.now();
  const result = task();
  return result instanceof Promise ? result.then(() => performance.now() - began) : performance.now() - began;
}

function kib(dirs) {
  const out = execFileSync("du", ["-s", "-k", "-c", ...dirs], { encoding: "utf8" });
  return Number(out.trim().split("\n").at(-1).split("\t")[0]);
}

/** Runs the edit in a container on the workspace's overlay volume (the realistic path: copy-up in the kernel). */
async function editInContainer(runtime, workspace) {
  const id = await runtime.createContainer({
    image: IMAGE,
    command: ["/bin/sh", "-c", `cd /workspace && ${EDIT}`],
    labels: { project: "bench-cow", role: "agent" },
    limits: { cpus: 1, memoryBytes: 256 * 1024 ** 2, swapBytes: 0, pids: 64 },
    network: "none",
    mounts: [modules.workspaceMount({ path: workspace.path, overlay: workspace.overlay, containerPath: "/workspace" })],
  });
  try {
    const { exitCode } = await runtime.runToExit(id, () => undefined, { timeoutMs: 60_000 });
    if (exitCode !== 0) throw new Error(`the edit container exited ${exitCode}`);
  } finally {
    await runtime.removeContainer(id);
  }
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "iw-bench-workspaces-"));
try {
  const tree = path.join(work, "tree");
  const dataDir = path.join(work, "data");
  const bytes = generateTree(tree, { files: FILES, totalBytes: TOTAL_BYTES });
  const runtime = modules.createDockerRuntime({ dataDir, mountPolicy: modules.dataDirMountPolicy({ dataDir }) });
  const { manifest } = await modules.createSnapshot({ projectRoot: tree, projectId: "bench-cow", dataDir });
  // the snapshot's shared tree is written once, by the first overlay workspace: measured, not in the ratio
  const firstMs = await time(async () => {
    const first = await modules.createWorkspace({ dataDir, snapshotId: manifest.id, kind: "overlay" });
    await modules.removeWorkspace({ dataDir, workspaceId: first.id });
  });
  console.log(
    `generated ${FILES} files, ${(bytes / 1e6).toFixed(0)} MB; the snapshot's shared tree written in ${firstMs.toFixed(0)} ms`,
  );

  const samples = { create: [], cp: [], diff: [], git: [], extraKib: [] };
  for (let run = 0; run < RUNS; run++) {
    const copy = path.join(work, `copy-${run}`);
    let workspace;
    const ours = async () =>
      (workspace = await modules.createWorkspace({ dataDir, snapshotId: manifest.id, kind: "overlay" }));
    const baseline = () => execFileSync("cp", ["-a", tree, copy]);
    for (const task of run % 2 === 0 ? [baseline, ours] : [ours, baseline])
      samples[task === ours ? "create" : "cp"].push(await time(task));

    await editInContainer(runtime, workspace);
    execFileSync("sh", ["-c", `cd '${copy}' && ${EDIT}`]);
    let found = 0;
    const diff = async () =>
      (found = (
        await modules.diffWorkspace({
          dataDir,
          manifest,
          workspaceRoot: workspace.path,
          overlayLower: workspace.overlay.lower,
        })
      ).changes.length);
    const git = () => spawnSync("git", ["diff", "--no-index", "--stat", tree, copy], { maxBuffer: 64 * 1024 * 1024 });
    for (const task of run % 2 === 0 ? [git, diff] : [diff, git])
      samples[task === diff ? "diff" : "git"].push(await time(task));
    if (found !== CHANGED) throw new Error(`the diff found ${found} changed files, expected ${CHANGED}`);

    const changedBytes = changedFiles.reduce((sum, rel) => sum + fs.statSync(path.join(workspace.path, rel)).size, 0);
    // what the workspace adds to the disk: du counts a hard-linked file once, under the snapshot listed first
    const own = fs.readdirSync(workspace.dir).map((name) => path.join(workspace.dir, name));
    const snapshotDir = path.dirname(workspace.overlay.lower);
    samples.extraKib.push(kib([snapshotDir, ...own]) - kib([snapshotDir]) - changedBytes / 1024);
    await modules.removeWorkspace({ dataDir, workspaceId: workspace.id });
    fs.rmSync(copy, { recursive: true, force: true });
    console.log(
      `run ${run + 1}/${RUNS}: create ${samples.create.at(-1).toFixed(1)} ms (cp -a ${samples.cp.at(-1).toFixed(0)}), diff ${samples.diff.at(-1).toFixed(1)} ms (git ${samples.git.at(-1).toFixed(0)}), own disk ${samples.extraKib.at(-1).toFixed(0)} KiB beyond ${(changedBytes / 1024).toFixed(0)} KiB changed`,
    );
  }
  const spread = (key) => `${Math.min(...samples[key]).toFixed(1)}–${Math.max(...samples[key]).toFixed(1)}`;
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
  const project = `${FILES.toLocaleString("en-US")} files / ${(bytes / 1e6).toFixed(0)} MB`;
  writeResult({
    name: "workspace-overlay-vs-cp",
    unit: "ms",
    value: Number(median(samples.create).toFixed(2)),
    baseline: Math.round(median(samples.cp)),
    notes: `median of ${RUNS}: a copy-on-write workspace of a ${project} snapshot (meta.json, an empty upper and work dir, the host-facing git dir; the shared tree already written, ${firstMs.toFixed(0)} ms once) vs \`cp -a\` of the tree, interleaved. Target ≤ 0.05×. Per run: ours ${spread("create")} ms, cp ${spread("cp")} ms. Load ${load}.`,
  });
  writeResult({
    name: "workspace-overlay-diff-vs-git",
    unit: "ms",
    value: Number(median(samples.diff).toFixed(2)),
    baseline: Math.round(median(samples.git)),
    notes: `median of ${RUNS}: the diff of ${CHANGED} files a container changed (upper layer only, sha256, patches; the manifest read) vs \`git diff --no-index --stat\` of the tree and a copy with the same edits. Target ≤ 0.05×. Per run: ours ${spread("diff")} ms, git ${spread("git")} ms. Load ${load}.`,
  });
  writeResult({
    name: "workspace-overlay-disk",
    unit: "KiB",
    value: Math.round(median(samples.extraKib)),
    baseline: null,
    notes: `median of ${RUNS}: what the workspace's own folders (upper with the ${CHANGED} copied-up files, work, git with its index hard-linked to the snapshot's, meta.json) add to du of the snapshot's folder, minus the changed files' bytes. Target < 2048 KiB. Per run: ${spread("extraKib")} KiB.`,
  });
} finally {
  spawnSync("rm", ["-rf", work]);
}
