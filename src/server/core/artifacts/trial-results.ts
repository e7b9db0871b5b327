import { createHash, randomBytes } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import { readBundle, type BundleEntry } from "../../../lib/files/file-bundle";
import type { BytePath } from "../../../lib/files/byte-path";
import { trialFinishedEvent } from "../../../shared/event-catalog";
import { diffWorkspace } from "../diffs/workspace-diff";
import { readManifest } from "../snapshots/manifest";
import { dataDirPaths } from "../storage/data-dir";
import { writeFinishReport } from "../trial-records/finish-outbox";
import { createWorkspace, readWorkspace, removeWorkspace } from "../workspaces/workspace-store";
import { bundlePath, clearInTree, encodePath, fileEntry, listTree, writeInTree } from "./bundle-paths";

/**
 * What a worker on another host sends back when a trial attempt ends, as one bundle:
 *   tree/<path>               the workspace's changed files and links against the snapshot (deletions as such);
 *   attempt/<file>            the attempt's trial.log, evaluation.json and codex-home/ (its conversation);
 *   finished.json             the finish report (last: the web process records the attempt from it if the
 *                             trial.finished event is lost, as for a local worker).
 * The web process materialises the workspace from its own copy of the snapshot plus these changes, under
 * the same id, so review, apply, continue and delete work as for a local trial.
 */
const NO_PATCHES = { maxPatchBytesPerFile: 0, maxTotalPatchBytes: 0, maxTextBytes: 0 };
const ATTEMPT_FILES = ["trial.log", "evaluation.json"] as const;

export async function* trialResultBundle(options: {
  dataDir: string;
  trialId: string;
  attempt: number;
  snapshotId: string;
  workspacePath: string | null;
  finished: object;
}): AsyncGenerator<BundleEntry> {
  if (options.workspacePath) {
    const manifest = await readManifest({ dataDir: options.dataDir, snapshotId: options.snapshotId });
    const diff = await diffWorkspace({
      dataDir: options.dataDir,
      manifest,
      workspaceRoot: options.workspacePath,
      caps: NO_PATCHES,
    });
    for (const change of diff.changes) {
      const as = `tree/${change.path}`;
      if (!change.after) yield { header: { kind: "delete", path: encodePath(as), size: 0 } };
      else yield await fileEntry({ root: options.workspacePath, rel: change.path, as });
    }
  }
  const files = dataDirPaths(options.dataDir).trialAttempt(options);
  for (const name of ATTEMPT_FILES) {
    const exists = await fsp.lstat(path.join(files.dir, name)).catch(() => null);
    if (exists?.isFile()) yield await fileEntry({ root: files.dir, rel: name, as: `attempt/${name}` });
  }
  for (const { rel } of await listTree(files.codexHome))
    yield await fileEntry({ root: files.codexHome, rel, as: `attempt/codex-home/${rel}` });
  const report = Buffer.from(JSON.stringify(options.finished));
  yield {
    header: {
      kind: "file",
      path: encodePath("finished.json"),
      size: report.length,
      sha256: createHash("sha256").update(report).digest("hex"),
    },
    body: () => report,
  };
}

const finishedSchema = trialFinishedEvent.omit({ v: true, at: true });

/** Writes an incoming bundle into `staging` (tree/, attempt/, finished.json); returns the paths to delete. */
async function stage(options: { staging: string; source: AsyncIterable<Buffer | Uint8Array> }): Promise<BytePath[]> {
  const deleted: BytePath[] = [];
  await readBundle({
    source: options.source,
    onEntry: async (header, body) => {
      const rel = bundlePath(header);
      const [top, second] = rel.split("/");
      const allowed =
        (top === "tree" && second !== ".git" && rel.length > 5) ||
        rel === "finished.json" ||
        (top === "attempt" && (ATTEMPT_FILES.some((name) => rel === `attempt/${name}`) || second === "codex-home"));
      if (!allowed) throw new Error(`A trial result names ${JSON.stringify(rel.slice(0, 200))}, which it may not.`);
      if (header.kind === "delete") deleted.push(rel.slice("tree/".length));
      else await writeInTree({ root: options.staging, rel, header, body });
    },
  });
  return deleted;
}

/** The staged changes over a fresh copy of the snapshot: deletions first, then every file and link. */
async function applyChanges(options: { staging: string; deleted: BytePath[]; tree: string }): Promise<void> {
  for (const rel of options.deleted) await clearInTree(options.tree, rel);
  const staged = path.join(options.staging, "tree");
  for (const { rel } of await listTree(staged)) {
    const entry = await fileEntry({ root: staged, rel, as: rel });
    await writeInTree({
      root: options.tree,
      rel,
      header: entry.header,
      body: entry.body ? entry.body() : (async function* () {})(),
    });
  }
}

/** Moves the staged attempt files (log, evaluation, Codex home) to where a local worker would have written them. */
async function placeAttemptFiles(options: { staging: string; attemptDir: string }): Promise<void> {
  const from = path.join(options.staging, "attempt");
  for (const name of await fsp.readdir(from).catch(() => [] as string[])) {
    const target = path.join(options.attemptDir, name);
    await fsp.rm(target, { recursive: true, force: true });
    await fsp.rename(path.join(from, name), target);
  }
}

/**
 * Receives a remote attempt's results into this (the web process's) data dir: the workspace under the
 * worker's id (a workspace delivered before is replaced), the attempt's files, then its finish report.
 * Everything is staged first; a bundle that fails midway leaves nothing of itself behind.
 */
export async function receiveTrialResults(options: {
  dataDir: string;
  trialId: string;
  attempt: number;
  snapshotId: string;
  workspaceId: string | null;
  source: AsyncIterable<Buffer | Uint8Array>;
}): Promise<{ files: number }> {
  const attemptDir = dataDirPaths(options.dataDir).trialAttempt(options).dir;
  await fsp.mkdir(attemptDir, { recursive: true, mode: 0o700 });
  const staging = path.join(attemptDir, `.incoming-${randomBytes(6).toString("hex")}`);
  await fsp.mkdir(staging, { mode: 0o700 });
  try {
    const deleted = await stage({ staging, source: options.source });
    const report = finishedSchema.parse(JSON.parse(await fsp.readFile(path.join(staging, "finished.json"), "utf8")));
    if (report.trialId !== options.trialId || report.data.attempt !== options.attempt)
      throw new Error("The finish report names another trial or attempt than the request.");
    if (report.data.workspaceId !== options.workspaceId)
      throw new Error("The finish report names another workspace than the request.");
    if (options.workspaceId) {
      const existing = await readWorkspace({ dataDir: options.dataDir, workspaceId: options.workspaceId }).catch(
        () => null,
      );
      if (existing) await removeWorkspace({ dataDir: options.dataDir, workspaceId: options.workspaceId });
      await createWorkspace({
        dataDir: options.dataDir,
        snapshotId: options.snapshotId,
        id: options.workspaceId,
        apply: (tree) => applyChanges({ staging, deleted, tree }),
      });
    }
    await placeAttemptFiles({ staging, attemptDir });
    // the evaluation the report names is now this data dir's copy
    const evaluationFile = report.data.evaluationFile ? path.join(attemptDir, "evaluation.json") : null;
    writeFinishReport({ dataDir: options.dataDir, event: { ...report, data: { ...report.data, evaluationFile } } });
    const staged = await listTree(path.join(staging, "tree"));
    return { files: staged.length + deleted.length };
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
}
