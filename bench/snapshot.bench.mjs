// Snapshots, workspaces and diffs on a generated 20,000-file / 200 MB tree, each against a baseline
// measured in the same run, interleaved (alternating which goes first), median of BENCH_RUNS (default 3):
//   snapshot (walk, hash, git pack + index)             vs `cp -a` of the tree        (target ≤ 1.5×)
//   workspace (files written from the pack, + .git)     vs `cp -a` of the tree        (target ≤ 1.0×)
//   diff of a workspace with 500 changed files (patches) vs `git diff --no-index --stat` of the same change (target ≤ 1.0×)
// Our modules are bundled with esbuild at start (as scripts/build.mjs does), so no build step is needed.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import { generateTree } from "./generated-tree.mjs";
import { median, writeResult } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FILES = 20_000;
const TOTAL_BYTES = 200 * 1000 * 1000;
const CHANGED = 500;

async function loadModules() {
  return importBundle({
    name: "snapshot-modules",
    exports: [
      'export { createSnapshot } from "./src/server/core/snapshots/snapshot-store";',
      'export { readManifest } from "./src/server/core/snapshots/manifest";',
      'export { createWorkspace, removeWorkspace } from "./src/server/core/workspaces/workspace-store";',
      'export { diffWorkspace } from "./src/server/core/diffs/workspace-diff";',
    ],
  });
}

/** Changes CHANGED text files the same way in any copy of the tree. */
function changeFiles(root) {
  for (let i = 1, changed = 0; changed < CHANGED; i += 37) {
    if (i % 20 === 0) continue;
    const file = path.join(root, `pkg-${i % 40}`, `module-${Math.floor(i / 40) % 25}`, `file-${i}.ts`);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    lines[Math.min(3, lines.length - 1)] = `changed line ${i};`;
    fs.writeFileSync(file, lines.join("\n"));
    changed++;
  }
}

function time(task) {
  const began = performance.now();
  const result = task();
  return result instanceof Promise ? result.then(() => performance.now() - began) : performance.now() - began;
}

function cpA(from, to) {
  execFileSync("cp", ["-a", from, to]);
}

function settle() {
  spawnSync("sync"); // the previous run's dirty pages are written back outside the measurement
}

const modules = await loadModules();
const work = fs.mkdtempSync(path.join(os.tmpdir(), "iw-bench-snapshot-"));
try {
  const tree = path.join(work, "tree");
  const generated = performance.now();
  const bytes = generateTree(tree, { files: FILES, totalBytes: TOTAL_BYTES });
  console.log(
    `generated ${FILES} files, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - generated) / 1000).toFixed(1)} s`,
  );

  const samples = { snapshot: [], snapshotCp: [], workspace: [], workspaceCp: [], diff: [], diffGit: [] };
  let diffFiles = 0;
  for (let run = 0; run < RUNS; run++) {
    const dataDir = path.join(work, `data-${run}`);
    const copy = path.join(work, `copy-${run}`);
    // each pair runs baseline first on even runs and ours first on odd runs, after a sync, so neither
    // side always pays for the other's write-back
    const pair = async (ours, baseline, into) => {
      const order = run % 2 === 0 ? [baseline, ours] : [ours, baseline];
      const times = [];
      for (const task of order) {
        settle();
        times.push(await time(task));
      }
      const [oursMs, baselineMs] = run % 2 === 0 ? [times[1], times[0]] : [times[0], times[1]];
      samples[into[0]].push(oursMs);
      samples[into[1]].push(baselineMs);
    };
    let snapshotId = "";
    await pair(
      async () =>
        (snapshotId = (await modules.createSnapshot({ projectRoot: tree, projectId: "bench", dataDir })).manifest.id),
      () => cpA(tree, copy),
      ["snapshot", "snapshotCp"],
    );
    fs.rmSync(copy, { recursive: true, force: true });

    let workspace;
    await pair(
      async () => (workspace = await modules.createWorkspace({ dataDir, snapshotId })),
      () => cpA(tree, copy),
      ["workspace", "workspaceCp"],
    );

    // the same 500 edits in the workspace and in the plain copy
    changeFiles(workspace.path);
    changeFiles(copy);
    const manifest = await modules.readManifest({ dataDir, snapshotId });
    await pair(
      async () =>
        (diffFiles = (await modules.diffWorkspace({ dataDir, manifest, workspaceRoot: workspace.path })).changes
          .length),
      () => spawnSync("git", ["diff", "--no-index", "--stat", tree, copy], { maxBuffer: 64 * 1024 * 1024 }),
      ["diff", "diffGit"],
    );
    if (diffFiles !== CHANGED) throw new Error(`the diff found ${diffFiles} changed files, expected ${CHANGED}`);
    fs.rmSync(copy, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
    console.log(
      `run ${run + 1}/${RUNS}: snapshot ${samples.snapshot.at(-1).toFixed(0)} ms (cp -a ${samples.snapshotCp.at(-1).toFixed(0)}), workspace ${samples.workspace.at(-1).toFixed(0)} ms (cp -a ${samples.workspaceCp.at(-1).toFixed(0)}), diff ${samples.diff.at(-1).toFixed(0)} ms (git ${samples.diffGit.at(-1).toFixed(0)})`,
    );
  }

  const spread = (ours, base) =>
    ` Per run: ours ${Math.round(Math.min(...samples[ours]))}–${Math.round(Math.max(...samples[ours]))} ms, baseline ${Math.round(Math.min(...samples[base]))}–${Math.round(Math.max(...samples[base]))} ms.`;
  const tree20k = `${FILES.toLocaleString("en-US")} files / ${(bytes / 1e6).toFixed(0)} MB`;
  writeResult({
    name: "snapshot-vs-cp",
    unit: "ms",
    value: Math.round(median(samples.snapshot)),
    baseline: Math.round(median(samples.snapshotCp)),
    notes: `median of ${RUNS}: snapshot of a generated ${tree20k} tree (walk with .gitignore rules, sha256 + git blob id of every file, one uncompressed git pack holding the content, trees, commit, index via git read-tree) vs \`cp -a\` of the same tree. Target ≤ 1.5×.${spread("snapshot", "snapshotCp")}`,
  });
  writeResult({
    name: "workspace-vs-cp",
    unit: "ms",
    value: Math.round(median(samples.workspace)),
    baseline: Math.round(median(samples.workspaceCp)),
    notes: `median of ${RUNS}: private workspace from that snapshot (every file written from one sequential read of the pack; .git with its own index and refs, objects borrowed from the snapshot through alternates) vs \`cp -a\` of the tree. Target ≤ 1.0×.${spread("workspace", "workspaceCp")}`,
  });
  writeResult({
    name: "diff-500-vs-git",
    unit: "ms",
    value: Math.round(median(samples.diff)),
    baseline: Math.round(median(samples.diffGit)),
    notes: `median of ${RUNS}: workspace diff with ${CHANGED} changed files (walk, sha256 of every file, unified patches) vs \`git diff --no-index --stat\` between the tree and a copy with the same changes. Target ≤ 1.0×.${spread("diff", "diffGit")}`,
  });
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
