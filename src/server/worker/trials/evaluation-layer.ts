import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { ancestorsOf, fromText, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import type { Mount } from "../../core/runtime/container-spec";
import type { TestFileView } from "../../../shared/study-schemas";
import type { WorkspaceDiff } from "../../core/diffs/workspace-diff";
import { markOpaque, openLayeredTree, type LayeredTree } from "../../core/workspaces/overlay-layers";
import { STALE_RUNNER_STATE } from "./captured-changes";
import { readCapturedFile } from "../../core/trial-records/test-files";

/**
 * What the evaluation leaves out of the agent's tree, so that it sees the snapshot plus exactly the changes
 * the review shows: every path the diff left out (new paths its ignore rules or the always-excluded list
 * skip — an agent's node_modules, a `.gitignore` that ignores itself and the conftest.py beside it — and
 * special files). Two exceptions: the root `.git` (the agent's, its config and hooks reset after the run:
 * snapshots/host-git.ts) and the captured files, which the evaluation writes back anyway.
 */
export function pathsLeftOut(options: {
  diff: Pick<WorkspaceDiff, "leftOut" | "skipped">;
  files: readonly TestFileView[];
}): BytePath[] {
  const captured = new Set(options.files.map((file) => fromText(file.path)));
  const all = [...options.diff.leftOut, ...options.diff.skipped.map((entry) => entry.path)];
  return [...new Set(all)].filter((rel) => rel !== ".git" && !captured.has(rel)).sort((a, b) => (a < b ? -1 : 1));
}

/** Removes `paths` from an evaluation's copy of the workspace (a directory a run made read-only too). */
export async function leaveOutOfCopy(options: { tree: string; paths: readonly BytePath[] }): Promise<void> {
  for (const rel of options.paths) {
    const target = toFsPath(options.tree, rel);
    try {
      await fsp.rm(target, { recursive: true, force: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EACCES" && code !== "EPERM") throw error;
      await writable(target);
      await fsp.rm(target, { recursive: true, force: true });
    }
  }
}

async function writable(dir: Buffer): Promise<void> {
  if (!(await fsp.lstat(dir).catch(() => null))?.isDirectory()) return;
  await fsp.chmod(dir, 0o700);
  for (const entry of await fsp.readdir(dir, { withFileTypes: true, encoding: "buffer" }))
    if (entry.isDirectory()) await writable(Buffer.concat([dir, Buffer.from("/"), entry.name]));
}

/**
 * The evaluation of a copy-on-write workspace, without copying it: a fresh layer (`upper`) over the
 * agent's layer and the snapshot's tree (`below`, topmost first). It holds an empty opaque directory at
 * every path left out (`leaveOut`, as above: overlayfs deletes only through a mount, so the stand-in for
 * "absent" is an empty directory; nothing of what the agent left there is seen) and in place of stale
 * runner state, and the captured files restored byte for byte (a captured symlink as that link) — written here, so they hide whatever the
 * agent left at their paths, and every directory on their way is a real one in this layer (hiding a file
 * or link the agent put there). Nothing below is touched. The test command's own writes land in `upper`
 * too, so the JUnit report is read from `upper` alone: one the agent left cannot stand in.
 */
export async function prepareEvaluationLayer(options: {
  dataDir: string;
  studyId: string;
  upper: string;
  below: readonly string[];
  files: readonly TestFileView[];
  /** Paths to hide (pathsLeftOut); none for an evaluation of the snapshot itself (the preflight). */
  leaveOut?: readonly BytePath[];
}): Promise<void> {
  const tree = openLayeredTree([options.upper, ...options.below]);
  for (const rel of new Set<BytePath>([...(options.leaveOut ?? []), ...STALE_RUNNER_STATE])) {
    if (typeof tree.lookup(rel) === "string") continue;
    for (const dir of ancestorsOf(rel)) await realDirectory({ tree, upper: options.upper, rel: dir });
    const hide = toFsPath(options.upper, rel);
    if (!(await fsp.lstat(hide).catch(() => null))) await fsp.mkdir(hide, { mode: 0o755 });
    markOpaque(hide);
  }
  for (const file of options.files) {
    const data = await readCapturedFile({ dataDir: options.dataDir, studyId: options.studyId, file });
    for (const dir of ancestorsOf(fromText(file.path))) await realDirectory({ tree, upper: options.upper, rel: dir });
    const target = path.join(options.upper, file.path);
    if (file.kind === "symlink") fs.symlinkSync(data, target);
    else fs.writeFileSync(target, data, { mode: 0o644, flag: "wx" });
  }
}

/** Makes `rel` a directory of the layer (with the mode of the one below, if that is a directory). */
async function realDirectory(options: { tree: LayeredTree; upper: string; rel: BytePath }): Promise<void> {
  const own = toFsPath(options.upper, options.rel);
  if ((await fsp.lstat(own).catch(() => null))?.isDirectory()) return;
  const below = options.tree.lookup(options.rel);
  const mode = typeof below !== "string" && below.type === "dir" ? below.stat.mode & 0o7777 : 0o755;
  await fsp.mkdir(own, { mode });
  await fsp.chmod(own, mode);
}

/** The evaluation's /workspace: its layer over the agent's and the snapshot's (`below`, topmost first). */
export function evaluationMount(options: { upper: string; workDir: string; below: readonly string[] }): Mount {
  return {
    hostPath: options.below.at(-1) ?? "",
    containerPath: "/workspace",
    readOnly: false,
    overlay: {
      upperDir: options.upper,
      workDir: options.workDir,
      lowerDirs: options.below.slice(0, -1),
      userXattr: true,
    },
  };
}
